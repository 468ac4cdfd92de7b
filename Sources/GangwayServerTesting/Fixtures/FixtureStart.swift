import Foundation
import GangwaySystem

#if canImport(Glibc)
    import Glibc
#endif

/// Starting a test fixture program (a Python backend, provider or collector) that writes
/// its address to a file named by `--ready-file` once it listens, through a temporary
/// name it renames: the wait for that first line, shared by every fixture.
enum FixtureStart {
    /// A new path for a fixture's ready file, in the temporary directory.
    static func readyPath(_ prefix: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
    }

    /// Starts `process`, which is to write to `ready`, and returns the first line it
    /// writes there, waiting for up to 15 seconds. The file (and its temporary name) is
    /// gone however this ends; the process is killed when it ends without the line,
    /// takes too long, or the wait is cancelled.
    static func firstLine(of process: Process, ready: String) async throws -> String? {
        defer {
            unlink(ready)
            unlink(ready + ".tmp")
        }
        try process.start()
        do {
            for _ in 0..<300 {
                if let text = try? String(contentsOfFile: ready, encoding: .utf8),
                    let line = text.split(separator: "\n").first
                {
                    return String(line)
                }
                guard process.isRunning else { break }
                try await Task.sleep(for: .milliseconds(50))
            }
        } catch {
            kill(process.processIdentifier, SIGKILL)
            throw error
        }
        kill(process.processIdentifier, SIGKILL)
        return nil
    }
}
