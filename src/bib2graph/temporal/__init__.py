"""How a field moves: yearly counts, bursts, reference publication year spectroscopy."""
