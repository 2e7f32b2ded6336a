import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Which of MediaPipe's video references hold on this machine's C library.
///
/// In video mode each frame's hand or pose region comes from the last frame's landmarks, turned by `atan2f` of two
/// of them, in MediaPipe (`std::atan2` on floats) as in our pipeline, and the loop amplifies a last-bit difference.
/// glibc 2.41 (Debian 13) made `atan2f` correctly rounded, with six more float functions MediaPipe calls; Debian 12's
/// glibc 2.36 is an ulp off on about one input in six. So MediaPipe 0.10.14 itself answers otherwise on the two: on
/// the gesture clip, 162 of 195 frames differ, scores by up to 0.11. `../shared/reference` was made on glibc 2.36;
/// where `atan2f` is correctly rounded the truth is MediaPipe there, made on Debian 12 with glibc 2.41's functions
/// preloaded (`tools/mediapipe_libm_references.sh` → `Tests/Fixtures/libm-correctly-rounded`).
public enum PlatformLibm {
    /// Whether this platform's `atan2f` is correctly rounded, from 10,000 fixed inputs in [−2, 2)²: each against
    /// `atan2` in double rounded once (glibc's double `atan2` is correctly rounded, and so is that rounding but for
    /// ties no float input reaches). glibc 2.36 fails on the first few; glibc 2.41 matches all 20,000,000 we tried.
    public static let atan2fIsCorrectlyRounded: Bool = {
        var state: UInt64 = 88_172_645_463_325_252
        func next() -> Float {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Float(state >> 40) / Float(1 << 24) * 4 - 2
        }
        for _ in 0..<10_000 {
            let y = next(), x = next()
            if atan2f(y, x) != Float(atan2(Double(y), Double(x))) { return false }
        }
        return true
    }()

    /// How the references were chosen, for messages.
    public static var description: String {
        atan2fIsCorrectlyRounded ? "correctly rounded atan2f (glibc 2.41+): Tests/Fixtures/libm-correctly-rounded"
            : "atan2f not correctly rounded (glibc 2.36's): ../shared/reference"
    }

    /// MediaPipe's video-mode result file `name` (a file of `../shared/reference`) as MediaPipe answers on this libm;
    /// on arm64, as MediaPipe answers there (Repository.mediapipeReference: its arm64 kernels round otherwise too).
    public static func videoReference(_ name: String) -> URL {
        #if arch(arm64)
        if Repository.arm64References.contains(name) { return Repository.mediapipeReference(name) }
        #endif
        return x86VideoReference(name, correctlyRounded: atan2fIsCorrectlyRounded)
    }

    /// The same result file as MediaPipe answers elsewhere: MediaPipe against itself under last-bit changes — on
    /// x86-64 the other libm; on arm64, MediaPipe on x86-64 with this libm.
    public static func otherVideoReference(_ name: String) -> URL {
        #if arch(arm64)
        if Repository.arm64References.contains(name) { return x86VideoReference(name, correctlyRounded: atan2fIsCorrectlyRounded) }
        #endif
        return x86VideoReference(name, correctlyRounded: !atan2fIsCorrectlyRounded)
    }

    private static func x86VideoReference(_ name: String, correctlyRounded: Bool) -> URL {
        correctlyRounded ? Repository.fixtures.appendingPathComponent("libm-correctly-rounded/\(name)")
            : Repository.shared.appendingPathComponent("reference/\(name)")
    }

    /// MediaPipe's one-pixel tracking spread file `name` (a file of `Tests/Fixtures`) on this libm.
    public static func trackingSpread(_ name: String) -> URL {
        atan2fIsCorrectlyRounded ? Repository.fixtures.appendingPathComponent("libm-correctly-rounded/\(name)")
            : Repository.fixtures.appendingPathComponent(name)
    }
}
