// Builds the app into the Python package (src/bib2graph/gui/static/), which the wheel ships: `b2g gui`
// then needs no Node. Relative base: the page is served under the token URL. Fixed file names: the same
// sources give the same files, and a rebuild replaces them in place.
import { defineConfig } from "vite";

export default defineConfig({
  base: "./",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "../src/bib2graph/gui/static",
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 1000,
    rolldownOptions: {
      output: {
        entryFileNames: "assets/app.js",
        chunkFileNames: "assets/[name].js",
        assetFileNames: "assets/[name][extname]",
      },
    },
  },
});
