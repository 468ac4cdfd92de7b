import Foundation
import GangwayServerStorage
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What test servers leave on the machine, named after the test process that made it so
/// that it can be removed. Each server's data directory, and each headless browser's
/// temporary directory, sits in one directory of the process
/// (`gangway-test-servers-<pid>` in the temporary directory), removed when the process
/// exits. Each PostgreSQL schema is `test_<machine>_<pid>_<id>`, dropped when its server's
/// ``TestServer/run(seed:options:_:)`` ends. What a process left when it ended without
/// cleaning up (killed, crashed, a server made and never removed) is removed by the next
/// test process on the same machine that makes a server or a browser, once its own
/// process is gone: a database other machines' tests share loses nothing of theirs.
enum TestLeftovers {
    static let directoryPrefix = "gangway-test-servers-"
    static let schemaPrefix = "test_"

    /// This process's directory of test servers' data directories.
    static let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent(directoryPrefix + String(getpid()))

    /// This machine, in a schema's name: the FNV-1a hash of its host name, in hex.
    static let machine: String = {
        let hash = ProcessInfo.processInfo.hostName.utf8.reduce(UInt32(2_166_136_261)) { hash, byte in
            (hash ^ UInt32(byte)) &* 16_777_619
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }()

    /// A new, unused schema name of this process.
    static func newSchema() -> String {
        let id = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        return schemaPrefix + machine + "_" + String(getpid()) + "_" + id
    }

    /// Makes this process's directory, and at the process's first call removes what
    /// ended processes left in the temporary directory and has this one's removed at exit.
    static func prepareDirectory() throws {
        let first = directoryPrepared.withLock { done in
            defer { done = true }
            return !done
        }
        if first {
            atexit { try? FileManager.default.removeItem(at: TestLeftovers.directory) }
            removeEndedProcessesDirectories()
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// At the process's first call for the database at `url`, drops the schemas that
    /// ended test processes left there.
    static func prepareSchemas(url: String) async {
        let first = schemasChecked.withLock { checked in checked.insert(url).inserted }
        guard first else { return }
        await dropEndedProcessesSchemas(url: url)
    }

    /// Removes the directories of test processes that have ended.
    static func removeEndedProcessesDirectories() {
        let temporary = FileManager.default.temporaryDirectory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [] {
            guard name.hasPrefix(directoryPrefix), let owner = Int32(name.dropFirst(directoryPrefix.count)),
                !isRunning(owner)
            else { continue }
            try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
        }
    }

    /// Drops the schemas test processes that have ended left in the database at `url`.
    static func dropEndedProcessesSchemas(url: String) async {
        await dropSchemas(url: url) { schema in
            owner(ofSchema: schema).map { !isRunning($0) } ?? false
        }
    }

    /// Drops `schema` of the database at `url`, if it is there.
    static func drop(schema: String, url: String) async {
        await dropSchemas(url: url) { $0 == schema }
    }

    private static let directoryPrepared = Mutex(false)
    private static let schemasChecked = Mutex<Set<String>>([])

    private static func dropSchemas(url: String, where remove: (String) -> Bool) async {
        let logger = Logger(label: "gangway.test-leftovers", factory: { _ in SwiftLogNoOpLogHandler() })
        // Nothing to do when the database cannot be reached: the server's start says so.
        try? await PostgresDriver(url: url, logger: logger).dropSchemas(prefix: schemaPrefix, where: remove)
    }

    /// The process of this machine that made a test schema (`test_<machine>_<pid>_<id>`);
    /// `nil` for another machine's or any other schema.
    static func owner(ofSchema schema: String) -> Int32? {
        let parts = schema.dropFirst(schemaPrefix.count).split(separator: "_")
        guard schema.hasPrefix(schemaPrefix), parts.count == 3, parts[0] == machine else { return nil }
        return Int32(parts[1])
    }

    /// Whether a process with this ID runs on this machine.
    static func isRunning(_ process: Int32) -> Bool {
        process > 0 && (kill(process, 0) == 0 || errno == EPERM)
    }
}
