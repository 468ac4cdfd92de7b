import Foundation
import GangwaySystem

/// Draws a QR code PNG with the Debian package `qrencode`, when it is installed.
struct QRCodeRenderer: Sendable {
    var qrencode = ExternalTool("qrencode")

    /// The PNG of `text`, or `nil` when `qrencode` is not installed. The text goes on
    /// standard input, never in the arguments, which other users of the machine can read.
    func png(for text: String) async throws -> Data? {
        let arguments = ["--type=PNG", "--size=6", "--margin=2", "--output=-"]
        guard let output = try await qrencode.run(arguments, input: Data(text.utf8)) else { return nil }
        guard output.status == 0, output.standardOutput.starts(with: [0x89, 0x50, 0x4E, 0x47]) else {
            throw QRCodeError.renderingFailed
        }
        return output.standardOutput
    }

    enum QRCodeError: Error {
        case renderingFailed
    }
}
