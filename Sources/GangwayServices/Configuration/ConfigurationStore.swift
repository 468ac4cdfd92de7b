import Foundation
import GangwaySystem

/// Keeps the configuration the device was activated with, so later launches and the next
/// users of a shared device do not activate again. It holds no secret: a server URL, an
/// app ID and a name.
public struct ConfigurationStore: Sendable {
    /// The file.
    public let file: URL

    public init(file: URL) {
        self.file = file
    }

    /// The saved configuration, or `nil` before the first activation.
    /// - Throws: ``ConfigurationError`` when the file exists and cannot be read.
    public func load() throws(ConfigurationError) -> AppConfiguration? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        guard let data = try? Data(contentsOf: file) else { throw .unreadableFile(file.lastPathComponent) }
        return try AppConfiguration.decode(data)
    }

    /// Saves `configuration`, replacing the file atomically, owner-only.
    public func save(_ configuration: AppConfiguration) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        try PrivateFiles.write(try encoder.encode(configuration), to: file)
    }

    /// Forgets the configuration: the next launch activates again.
    public func remove() throws {
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        try FileManager.default.removeItem(at: file)
    }
}
