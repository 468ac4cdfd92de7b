import Foundation
import GangwaySystem

/// The programs the tests check the encoder against, each found where Gangway looks for
/// the programs it runs (``GangwaySystem/ExternalTool``).
enum Tools {
    /// A QR code reader (Debian package zbar-tools).
    static let zbarimg = ExternalTool("zbarimg")
    /// A reference encoder (Debian package qrencode).
    static let qrencode = ExternalTool("qrencode")
    /// A browser that renders SVG documents headless (Debian package chromium).
    static let chromium = ExternalTool("chromium")
    /// Python 3, for its `zlib` module.
    static let python3 = ExternalTool("python3")
}

/// A fresh folder under the system's temporary folder, removed when the value is released.
final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("gangway-qr-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes `bytes` to `name` in the folder and returns its path.
    func write(_ bytes: [UInt8], to name: String) throws -> String {
        let fileURL = url.appendingPathComponent(name)
        try Data(bytes).write(to: fileURL)
        return fileURL.path
    }
}
