"""Ways a text file gets damaged on its way to bib2graph: text spliced in, an encoding other than the
one expected, bytes flipped, the end cut off. Shared by the harnesses of the text readers."""

from __future__ import annotations

from hypothesis import strategies as st


def damaged(draw, text: str, snippets: list[str], encodings: list[str]) -> bytes:
    """`text`, sometimes with `snippets` spliced in, encoded in one of `encodings`, sometimes with bytes
    flipped or cut short."""
    for _ in range(draw(st.integers(1, 3)) if draw(st.integers(0, 3)) == 0 else 0):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(snippets)) + text[at:]
    encoding = draw(st.sampled_from(encodings))
    data = bytearray(text.encode(encoding, "replace" if encoding == "latin-1" else "surrogatepass"))
    for _ in range(draw(st.integers(1, 3)) if data and draw(st.integers(0, 3)) == 0 else 0):
        data[draw(st.integers(0, len(data) - 1))] ^= draw(st.integers(1, 255))
    if data and draw(st.integers(0, 7)) == 0:
        del data[draw(st.integers(0, len(data) - 1)):]
    return bytes(data)
