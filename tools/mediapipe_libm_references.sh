#!/usr/bin/env bash
# MediaPipe 0.10.14's video references as it answers where atan2f and six other float functions are correctly
# rounded (glibc 2.41 and later: Debian 13), made on this Debian 12 host by preloading tools/correctly_rounded_libm.c.
#
# In video mode each frame's region comes from the last frame's landmarks, rotated by atan2f of two of them, and
# that loop amplifies a last-bit difference: MediaPipe itself, under glibc 2.41's atan2f, answers otherwise than
# under 2.36's on 162 of the gesture clip's 195 frames (scores by up to 0.11). Our pipeline calls the platform's
# atan2f as MediaPipe does, so on such a glibc the truth is MediaPipe on that glibc: these files, which the tests
# pick when the platform's atan2f is correctly rounded (Tests/Support/TestSupport/PlatformLibm.swift).
#
#   tools/mediapipe_libm_references.sh [SHARED_DIR]   → Tests/Fixtures/libm-correctly-rounded/
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${1:-../shared}
python=.cache/mediapipe/bin/python
out=Tests/Fixtures/libm-correctly-rounded
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -shared -fPIC -fno-builtin -o "$work/libm-cr.so" tools/correctly_rounded_libm.c -lm
mkdir -p "$out"
run() { LD_PRELOAD="$work/libm-cr.so" "$python" "$@" 2>"$work/stderr" || { cat "$work/stderr" >&2; return 1; }; }
# As ../shared/reference's files were made (its README): the whole gesture clip with numHands 2 and 1, and the
# juggling clip's first 90 frames with numPoses 1 and 2.
clip=$shared/videos/hand_gesture_fist_thumbsup.mp4
run "$shared/tools/mediapipe_reference.py" gesture "$shared/models/gesture_recognizer.task" --video --num 2 --max-frames 1000 "$clip" >"$out/gesture_video.json"
run "$shared/tools/mediapipe_reference.py" gesture "$shared/models/gesture_recognizer.task" --video --num 1 --max-frames 1000 "$clip" >"$out/gesture_video_single.json"
for poses in 1 2; do
    [ "$poses" = 1 ] && name=pose_video_single.json || name=pose_video.json
    run "$shared/tools/mediapipe_reference.py" pose "$shared/models/pose_landmarker_lite.task" --video --num "$poses" --max-frames 90 \
        "$shared/videos/full_body_juggle.mp4" >"$out/$name"
done
# The yardsticks: MediaPipe against itself under one-pixel nudges, on the same libm.
run tools/mediapipe_gesture_tracking_spread.py "$shared" >"$out/gesture_tracking_spread.json"
run tools/mediapipe_tracking_spread.py "$shared" >"$out/pose_tracking_spread.json"
# And MediaPipe 1.2.3 against 0.10.14's answers above (the releases' own spread), on the same libm.
LD_PRELOAD="$work/libm-cr.so" .cache/mediapipe-1.2.3/bin/python tools/mediapipe_tracking_spread.py "$shared" \
    --against "$out/pose_video_single.json" >"$out/pose_tracking_spread_1.2.3.json" 2>"$work/stderr" || { cat "$work/stderr" >&2; exit 1; }
ls -l "$out"
