import Foundation
import GangwaySystem
import Synchronization

/// The `url` file in a server's data directory, where `gangway admin` finds the server
/// running there: written owner-only once the server listens, and removed when it stops
/// unless another server wrote its own since, so a stale address never draws the admin
/// token (which the admin client also holds back until the server proves itself).
public final class ServerURLFile: Sendable {
    /// The file.
    public let file: URL
    private let written = Mutex<Data?>(nil)

    /// The `url` file of the data directory `directory`.
    public init(directory: URL) {
        file = directory.appendingPathComponent(Self.fileName)
    }

    /// The file's name in the data directory.
    public static let fileName = "url"

    /// Writes `url`, replacing what the file held.
    public func write(_ url: URL) throws {
        let contents = Data((url.absoluteString + "\n").utf8)
        try PrivateFiles.write(contents, to: file)
        written.withLock { $0 = contents }
    }

    /// Removes the file if it still holds what ``write(_:)`` wrote.
    public func removeIfUnchanged() {
        guard let mine = written.withLock({ $0 }), (try? Data(contentsOf: file)) == mine else { return }
        try? FileManager.default.removeItem(at: file)
    }
}
