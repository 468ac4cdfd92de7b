import Foundation
import GangwaySystem
import GangwayTesting

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

    /// Runs `tool` as ``GangwaySystem/ExternalTool/run(_:input:)`` does, two at a time at
    /// most across these tests: their many cases run in parallel, and a few hundred
    /// programs started at once would hold more files open than the other tests of the
    /// process may start a program with.
    static func run(
        _ tool: ExternalTool,
        _ arguments: [String],
        input: Data = Data()
    ) async throws
        -> ExternalTool.Output?
    {
        try await gate.inside { try await tool.run(arguments, input: input) }
    }

    private static let gate = Gate(width: 2)
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
