import Foundation
import GangwaySystem

/// Reads QR Codes in image files with `zbarimg`.
enum Zbar {
    /// The text `zbarimg --raw -q` prints for a PNG image, without its final line feed,
    /// or `nil` when it finds no symbol.
    static func decode(png: [UInt8]) async throws -> String? {
        let folder = try TemporaryFolder()
        let path = try folder.write(png, to: "code.png")
        return try await decode(file: path)
    }

    /// The text `zbarimg --raw -q` prints for an image file, without its final line feed.
    static func decode(file path: String) async throws -> String? {
        guard let output = try await Tools.run(Tools.zbarimg, ["--raw", "-q", path]), output.status == 0 else {
            return nil
        }
        var text = output.text
        if text.hasSuffix("\n") {
            text.removeLast()
        }
        return text
    }
}
