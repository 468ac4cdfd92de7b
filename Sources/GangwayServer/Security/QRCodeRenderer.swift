import Foundation

/// Draws a QR code PNG with the Debian package `qrencode`, when it is installed.
struct QRCodeRenderer: Sendable {
    /// Where to look for the `qrencode` program.
    var searchPath = ["/usr/bin/qrencode", "/usr/local/bin/qrencode", "/opt/homebrew/bin/qrencode"]

    var executable: String? { searchPath.first { FileManager.default.isExecutableFile(atPath: $0) } }

    /// The PNG of `text`, or `nil` when `qrencode` is not installed.
    func png(for text: String) async throws -> Data? {
        guard let executable else { return nil }
        return try await Task.detached {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["--type=PNG", "--size=6", "--margin=2", "--output=-", "--", text]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0, data.starts(with: [0x89, 0x50, 0x4E, 0x47]) else {
                throw QRCodeError.renderingFailed
            }
            return data
        }.value
    }

    enum QRCodeError: Error {
        case renderingFailed
    }
}
