import Foundation

/// A clip given a display rotation by a stream copy (the same coded frames), as a phone's portrait clip carries one.
///
/// ffmpeg 5.1 (Debian 12) writes the `rotate` metadata tag into the MP4's display matrix; ffmpeg 6 and later
/// (Debian 13's 7.1) ignore that tag on output and take `-display_rotation` instead, an input option. For the same R
/// both make the same matrix — the picture turned R° counter-clockwise, ffprobe's rotation 90, −180, −90 for R = 90,
/// 180, 270 (compared on both: the same matrices, and frame 0 decoded to the same bytes). So the tests make their
/// clips with whichever this ffmpeg has, and check the made clip's rotation with ffprobe: a clip that came out
/// unturned is this error, not a wrong comparison later.
public enum RotatedClip {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Whether the ffmpeg on PATH has `-display_rotation` (ffmpeg 6 and later), from its full help.
    public static let ffmpegHasDisplayRotation: Bool = {
        guard let help = try? ChildProcess.run(env, ["ffmpeg", "-hide_banner", "-h", "full"]) else { return false }
        return help.output.contains("-display_rotation")
    }()

    private static let env = URL(fileURLWithPath: "/usr/bin/env")

    /// The ffmpeg arguments that copy `source` to `output` with a rotation of `degrees` counter-clockwise.
    public static func arguments(source: String, degrees: Int, output: String) -> [String] {
        let head = ["-nostdin", "-v", "error", "-y"]
        if ffmpegHasDisplayRotation {
            return head + ["-display_rotation", "\(degrees)", "-i", source, "-c", "copy", output]
        }
        return head + ["-i", source, "-c", "copy", "-metadata:s:v:0", "rotate=\(degrees)", output]
    }

    /// Copies `source` to `output` turned `degrees` counter-clockwise, and checks ffprobe reads that rotation back.
    @discardableResult
    public static func make(from source: URL, degrees: Int, at output: URL) throws -> URL {
        let made = try ChildProcess.run(env, ["ffmpeg"] + arguments(source: source.path, degrees: degrees, output: output.path))
        guard made.status == 0 else { throw Failure(description: "ffmpeg could not make \(output.lastPathComponent): \(made.stderr)") }
        let probed = try rotation(of: output)
        guard let probed, ((probed - degrees) % 360 + 360) % 360 == 0 else {
            let how = ffmpegHasDisplayRotation ? "-display_rotation" : "the rotate tag"
            let found = probed.map(String.init) ?? "none"
            throw Failure(description: "\(output.lastPathComponent), made with \(how), has ffprobe rotation \(found), not \(degrees)")
        }
        return output
    }

    /// ffprobe's rotation of the first video stream (its display matrix, whole degrees counter-clockwise), nil
    /// without one.
    public static func rotation(of clip: URL) throws -> Int? {
        let probe = try ChildProcess.run(env, ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                                               "stream_side_data=rotation", "-of", "default=noprint_wrappers=1:nokey=1", clip.path])
        guard probe.status == 0 else { throw Failure(description: "ffprobe failed on \(clip.lastPathComponent): \(probe.stderr)") }
        return probe.output.split(separator: "\n").first.flatMap { Int($0) }
    }
}
