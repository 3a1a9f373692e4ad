#!/bin/sh
# Regenerates examples/sample.pdf from examples/sample-src/ with `mutool create` (mupdf-tools).
# The figure is a 64 x 48 colour gradient written as a PPM here, so the output is reproducible.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
awk 'BEGIN { w = 64; h = 48; print "P3"; print w, h; print 255;
             for (y = 0; y < h; y++) for (x = 0; x < w; x++)
               print int(255 * x / (w - 1)), int(255 * y / (h - 1)), 128 }' > "$work/figure.ppm"
cp "$here/sample-src/page1.txt" "$here/sample-src/page2.txt" "$work/"
(cd "$work" && mutool create -o sample.pdf -O compress page1.txt page2.txt)
cp "$work/sample.pdf" "$here/sample.pdf"
echo "wrote $here/sample.pdf"
