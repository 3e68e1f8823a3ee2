#!/usr/bin/env python3
"""A 12-megapixel phone photo into a PDF page: pdftrapper against the pipeline a user would
otherwise script, in one run, as ratios (absolute times on these machines are noise).
Usage: bench/photo.py PATH/TO/pdftrapper [--runs N]

1. One 4032 x 3024 photo-like picture (gradients, shapes, text, texture and grain, so that the
   codecs have work), made here and encoded with `heif-enc -q 85` (HEIC), `heif-enc -A -q 70`
   (AVIF) and `cwebp -q 85` (lossy WebP).
2. Each into a new PDF: `pdftrapper ingest --to OUT.pdf photo.X`, which stores it as JPEG at
   quality 90, against `heif-convert -q 90` to JPEG then `img2pdf` (HEIC and AVIF), and `dwebp`
   to PNG then `img2pdf` (WebP: img2pdf keeps a PNG losslessly, so that output is larger and
   exact, not the same quality). Whole pipelines, process starts included: the peer runs as one
   `sh -c`. Medians of N alternating runs (default 5); peak RSS of each from /usr/bin/time (for
   the `sh -c`, its largest process).
3. Quality: the picture embedded in each PDF (pulled out by `pdfimages -all`, decoded by Pillow)
   against the decoded source (heif-convert or dwebp to PNG), as the mean absolute difference per
   sample (0 to 255), so "the same quality" can be seen.
4. find_page + clean on a 12 MP photo of a letter on a table (the tests' scene), as what they add
   to an ingest, against ImageMagick's `-distort Perspective` from the known corners.
"""
import glob, json, math, os, random, shutil, statistics, subprocess, sys, tempfile, time

from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont, ImageStat

from engine import timed  # median wall time and peak RSS, as every bench here measures them

WIDTH, HEIGHT = 4032, 3024  # a 12 MP phone camera's 4:3 frame

def side_by_side(ours, peer, prepares, runs):
    """(time, RSS) of each, one run of each a round, the order swapped every round: a build beside
    this one moves the machine's pace between seconds, and both should see the same machine."""
    results = {0: [], 1: []}
    for i in range(runs):
        for which in ((0, 1) if i % 2 == 0 else (1, 0)):
            results[which].append(timed((ours, peer)[which], prepares[which], 1))
    return [(statistics.median(t for t, _ in r), max(m for _, m in r)) for r in (results[0], results[1])]

def photo_like(path):
    """Sky-to-ground gradients, soft-edged shapes and a caption, with coarse texture and fine grain
    on top: flat colour would make every codec look fast. Seeded, so each run codes the same picture."""
    rng = random.Random(12)
    ramp = Image.linear_gradient("L").resize((WIDTH, HEIGHT))
    picture = Image.merge("RGB", (ramp.point(lambda v: 90 + v * 0.5),
                                  ramp.point(lambda v: 150 + v * 0.3 - (v > 150) * 50),  # a horizon
                                  ramp.point(lambda v: 230 - v * 0.8)))
    draw = ImageDraw.Draw(picture)
    for _ in range(80):
        x, y, size = rng.randrange(WIDTH), rng.randrange(HEIGHT), rng.randrange(60, 700)
        colour = tuple(rng.randrange(256) for _ in range(3))
        if rng.random() < 0.6:
            draw.ellipse((x, y, x + size, y + size * rng.uniform(0.4, 1.2)), fill=colour)
        else:
            draw.polygon([(x + rng.randrange(-size, size), y + rng.randrange(-size, size)) for _ in range(5)], fill=colour)
    try:
        font = ImageFont.truetype("DejaVuSans-Bold.ttf", 220)
    except OSError:
        font = ImageFont.load_default(220)
    draw.text((300, 2500), "PDFTrapper 12 MP", font=font, fill=(250, 250, 240))
    picture = picture.filter(ImageFilter.GaussianBlur(3))  # a lens's soft edges, not pixel-sharp ones
    # Texture (foliage, fabric) from upscaled noise, and sensor grain at half resolution: grain at
    # every pixel made a 6.7 MB HEIC, more than a phone's 2 to 4 MB.
    texture = Image.effect_noise((WIDTH // 6, HEIGHT // 6), 64).resize((WIDTH, HEIGHT), Image.BICUBIC)
    texture = texture.point(lambda v: 128 + (v - 128) * 0.35)
    grain = Image.effect_noise((WIDTH // 2, HEIGHT // 2), 4).resize((WIDTH, HEIGHT), Image.BILINEAR)
    texture = ImageChops.add(texture, grain, 1, -128)
    picture = ImageChops.add(picture, Image.merge("RGB", (texture,) * 3), 1, -128)
    picture.save(path, compress_level=1)

def run(*command):
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

def embedded(pdf, work):
    """The one picture on the PDF's page, decoded by Pillow (JPEG as stored; Flate as PNG)."""
    prefix = os.path.join(work, "embedded")
    for old in glob.glob(prefix + "*"):
        os.remove(old)
    run("pdfimages", "-all", pdf, prefix)
    (path,) = glob.glob(prefix + "*")
    return Image.open(path).convert("RGB")

def mean_difference(a, b):
    return statistics.mean(ImageStat.Stat(ImageChops.difference(a, b)).mean)

def main():
    binary = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 5
    work = tempfile.mkdtemp(prefix="pdftrapper-bench-")
    state = os.path.join(work, "state")
    try:
        source = os.path.join(work, "photo.png")
        photo_like(source)
        heic, avif, webp = (os.path.join(work, "photo." + ext) for ext in ("heic", "avif", "webp"))
        run("heif-enc", "-q", "85", "-o", heic, source)
        run("heif-enc", "-A", "-q", "70", "-o", avif, source)
        run("cwebp", "-q", "85", source, "-o", webp)

        # Each side its own output, so that both are there to weigh and compare after the runs.
        ours_out, peer_out = os.path.join(work, "ours.pdf"), os.path.join(work, "peer.pdf")
        jpeg, png = os.path.join(work, "tmp.jpg"), os.path.join(work, "tmp.png")
        heif_peer = f'heif-convert -q 90 "$1" {jpeg} && img2pdf {jpeg} -o {peer_out}'
        # (name, input, peer's sh -c script, peer's name, runs, the command that decodes the input
        # to the PNG named after it). img2pdf takes some 20 s over dwebp's PNG (it joins its 8 KB
        # IDAT chunks one by one, quadratically), so WebP gets half the runs, as engine.py's pdfunite.
        cases = [("HEIC", heic, heif_peer, "heif-convert + img2pdf", runs, ["heif-convert", heic]),
                 ("AVIF", avif, heif_peer, "heif-convert + img2pdf", runs, ["heif-convert", avif]),
                 ("WebP", webp, f'dwebp -quiet "$1" -o {png} && img2pdf {png} -o {peer_out}',
                  "dwebp + img2pdf (lossless)", max(1, runs // 2), ["dwebp", "-quiet", webp, "-o"])]

        def fresh(out):
            # `ingest --to` makes a new PDF only when OUT is missing; flushed, so that no run pays
            # for writing back the one before.
            def prepare():
                if os.path.exists(out):
                    os.remove(out)
                os.sync()
            return prepare

        print(f"# a {WIDTH} x {HEIGHT} photo into a new PDF page; median of {runs} alternating runs ({max(1, runs // 2)} for WebP)")
        print(f"{'input':>5} {'MB':>5} {'ours s':>7} {'peer s':>7} {'ours/peer':>10} {'out MB':>7} "
              f"{'peer MB':>8} {'size ratio':>11} {'RSS ours MB':>12} {'RSS peer MB':>12} "
              f"{'diff ours':>10} {'diff peer':>10}  peer")
        summary = None
        for name, path, peer_script, peer_name, case_runs, decode in cases:
            ours_command = [binary, "ingest", "--to", ours_out, path, "--state-dir", state]
            peer_command = ["sh", "-c", peer_script, "sh", path]
            (t_ours, rss_ours), (t_peer, rss_peer) = side_by_side(
                ours_command, peer_command, (fresh(ours_out), fresh(peer_out)), case_runs)

            # Size and quality of the last run's outputs, against the decoded source.
            decoded = os.path.join(work, "decoded.png")
            run(*decode, decoded)
            reference = Image.open(decoded).convert("RGB")
            size_ours, diff_ours = os.path.getsize(ours_out), mean_difference(embedded(ours_out, work), reference)
            size_peer, diff_peer = os.path.getsize(peer_out), mean_difference(embedded(peer_out, work), reference)

            print(f"{name:>5} {os.path.getsize(path) / 1e6:>5.1f} {t_ours:>7.2f} {t_peer:>7.2f} "
                  f"{t_ours / t_peer:>10.2f} {size_ours / 1e6:>7.2f} {size_peer / 1e6:>8.2f} "
                  f"{size_ours / size_peer:>11.3f} {rss_ours / 1024:>12.0f} {rss_peer / 1024:>12.0f} "
                  f"{diff_ours:>10.2f} {diff_peer:>10.2f}  {peer_name}")
            if name == "HEIC":
                summary = (f"photo: 12 MP HEIC to a PDF page: pdftrapper {t_ours:.2f} s, {peer_name} "
                           f"{t_peer:.2f} s (ratio {t_ours / t_peer:.2f}), output {size_ours / size_peer:.2f}x "
                           f"the size, mean difference from the source {diff_ours:.2f} against {diff_peer:.2f}")
        print("(diff: mean absolute difference per sample from the decoded source, 0 to 255; "
              "goal for HEIC: ratio <= 1, size ratio <= 1 at the same diff)")
        print(summary)
        find_page(binary, work, state, runs)
    finally:
        shutil.rmtree(work, ignore_errors=True)

def find_page(binary, work, state, runs):
    """A 12 MP phone photo of an A4 letter on a table (the tests' scene: perspective, a shadow,
    uneven light): `find_page = true` and `clean = "auto"` through `pdftrapper ingest`, against
    the same ingest without them (what the steps add) and ImageMagick warping the photo from the
    corners the scene reports (the warp alone, with nothing to find: the floor)."""
    scene = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures", "photo-scenes", "scene.py")
    photo = os.path.join(work, "letter.jpg")
    made = subprocess.run([sys.executable, scene, photo, json.dumps({"angle": 18, "tilt": 22, "shadow": True,
                                                                      "size": [WIDTH, HEIGHT], "fill": 0.8})],
                          check=True, capture_output=True, text=True)
    corners = json.loads(made.stdout)["corners"]
    config = os.path.join(work, "find-page.toml")
    with open(config, "w") as f:
        f.write(f'[daemon]\nstate_dir = "{state}"\n[library]\nroot = "{work}/library"\n[inbox]\npath = "{work}/inbox"\n'
                '[[rule]]\nname = "phone"\ntarget = "Letter.pdf"\nfind_page = true\nclean = "auto"\n')
    target, plain = os.path.join(work, "library", "Letter.pdf"), os.path.join(work, "plain.pdf")
    def fresh(path):
        return lambda: os.path.exists(path) and os.remove(path)
    # The page's size in the photo's pixels: the longer upright side, A4's proportions.
    height = round(max(math.dist(corners[0], corners[3]), math.dist(corners[1], corners[2])))
    width = round(height * 210 / 297)
    pairs = " ".join(f"{x:.1f},{y:.1f} {u},{v}" for (x, y), (u, v) in zip(corners, [(0, 0), (width, 0), (width, height), (0, height)]))
    warp = ["convert", photo, "-distort", "Perspective", pairs, "-crop", f"{width}x{height}+0+0", "+repage",
            "-quality", "85", os.path.join(work, "warped.jpg")]
    found = config.replace(".toml", "-alone.toml")
    with open(config) as f, open(found, "w") as g:
        g.write(f.read().replace('clean = "auto"\n', "").replace("Letter.pdf", "Found.pdf"))
    found_target = os.path.join(work, "library", "Found.pdf")
    steps, steps_rss = timed([binary, "ingest", "--config", config, photo], fresh(target), runs)
    finding, finding_rss = timed([binary, "ingest", "--config", found, photo], fresh(found_target), runs)
    alone, alone_rss = timed([binary, "ingest", "--to", plain, photo, "--state-dir", state], fresh(plain), runs)
    magick, _ = timed(warp, None, runs)
    # The decoded photo as leptonica holds it: four bytes a pixel.
    decoded = WIDTH * HEIGHT * 4 / 1024
    print(f"# find_page + clean on a {WIDTH} x {HEIGHT} photo of an A4 letter; median of {runs} runs")
    print(f"ingest with find_page + clean {steps:.2f} s, find_page alone {finding:.2f} s, neither {alone:.2f} s: "
          f"find_page (decode, find, warp, JPEG) {finding - alone:.2f} s, clean {steps - finding:.2f} s; "
          f"ImageMagick's warp from known corners {magick:.2f} s (ratio {(steps - alone) / magick:.2f})")
    print(f"peak RSS: {steps_rss / 1024:.0f} MB with find_page + clean, {finding_rss / 1024:.0f} MB with find_page, "
          f"{alone_rss / 1024:.0f} MB without; the decoded photo is {decoded / 1024:.0f} MB "
          f"({(steps_rss - alone_rss) / decoded:.2f}x of it added)")
    print(f"photo: find_page + clean on a 12 MP photo: {steps - alone:.2f} s (goal: under 0.5 s), "
          f"ImageMagick's warp alone {magick:.2f} s")

if __name__ == "__main__":
    main()
