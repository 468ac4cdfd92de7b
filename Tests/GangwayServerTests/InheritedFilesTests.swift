import Foundation
import GangwayServerTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A program the server starts, as the Swift runtime starts its crash reporter when the
/// process crashes, inherits none of its sockets: a crash leaves the port free for a
/// restart.
@Suite("A program the server starts, as its crash reporter, keeps none of its sockets", .servingTurn)
struct InheritedFilesTests {
    /// The inode of the socket listening on `port` on loopback, from `/proc/net/tcp`.
    static func listeningInode(port: Int) throws -> String? {
        // Read to its end: the kernel writes the table a page at a time, and with many
        // connections open (a whole suite in parallel) it is longer than one.
        guard let file = FileHandle(forReadingAtPath: "/proc/net/tcp") else { return nil }
        defer { try? file.close() }
        let table = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        let local = String(format: ":%04X", port)
        for line in table.split(separator: "\n").dropFirst() {
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            // local address, remote address, state (0A: LISTEN), …, inode (the tenth).
            guard columns.count > 9, columns[1].hasSuffix(local), columns[3] == "0A" else { continue }
            return String(columns[9])
        }
        return nil
    }

    /// The open files of a shell started with `posix_spawn`, which closes nothing of
    /// its parent's (as the runtime starts `swift-backtrace`).
    static func filesOfAChild() throws -> String {
        let listing = FileManager.default.temporaryDirectory.appendingPathComponent("gangway-fds-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: listing) }
        let arguments = ["/bin/sh", "-c", "ls -l /proc/$$/fd > '\(listing.path)' 2>&1"]
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let started = posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ)
        guard started == 0 else { throw TestServerError("posix_spawn failed: \(started)") }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return try String(contentsOf: listing, encoding: .utf8)
    }

    @Test("the listening socket is not inherited; a socket opened without close-on-exec is, so the check can see one")
    func listenerNotInherited() async throws {
        #if os(Linux)
            try await ServerFixture(over: .loopback, backend: .sqlite).runSeeded { api in
                let inode = try #require(try Self.listeningInode(port: api.running.port), "no listener found")
                // The check itself: a socket of the test's own, opened as NIO opens its.
                let control = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                #expect(control >= 0)
                defer { close(control) }
                let controlLink = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(control)")
                let files = try Self.filesOfAChild()
                #expect(
                    controlLink.hasPrefix("socket:[") && files.contains(controlLink),
                    "the child sees what it inherits: \(files)"
                )
                #expect(!files.contains("socket:[\(inode)]"), "the server's listener went to the child: \(files)")
            }
        #endif
    }
}
