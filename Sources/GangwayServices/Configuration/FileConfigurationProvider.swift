import Foundation

/// Reads the configuration from a JSON file: one the app ships (``ConfigurationSource/bundled``)
/// or one a device-management system writes (``ConfigurationSource/managed``). A missing
/// file means "no configuration here"; a file that exists and cannot be read or checked is
/// an error, not silently skipped.
public struct FileConfigurationProvider: ConfigurationProvider {
    public let source: ConfigurationSource
    /// The file.
    public let file: URL

    public init(_ source: ConfigurationSource, file: URL) {
        self.source = source
        self.file = file
    }

    public func configuration() async throws(ConfigurationError) -> AppConfiguration? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw .unreadableFile(file.lastPathComponent)
        }
        return try AppConfiguration.decode(data)
    }
}
