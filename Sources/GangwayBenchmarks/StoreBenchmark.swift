import ArgumentParser
import Crypto
import CryptoExtras
import Foundation
import GRDB
import GangwayPolicy
import GangwayStore
import GangwaySystem
import Logging

/// `gangway-benchmark store`: the secure store against plain GRDB, the passcode change
/// at two store sizes, unlock beyond the key derivation, and SQLCipher's rekey when the
/// `sqlcipher` command is installed.
struct StoreBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Benchmark the secure store; prints name: value lines."
    )

    @Option(help: "Values written and read in the put/get comparison.")
    var entries = 10_000

    @Option(help: "Bytes per value.")
    var valueSize = 200

    @Option(help: "Entries of the small and the large store for the passcode change.")
    var passwdSizes: [Int] = [1_000, 100_000]

    @Option(help: "Runs per measurement; the median is reported.")
    var repetitions = 5

    func run() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("gangway-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        var logger = Logger(label: "gangway.benchmark")
        logger.logLevel = .warning
        let environment = SecureStoreEnvironment(deviceKeys: InMemoryDeviceKeyStore(), logger: logger)
        let values = (0..<entries).map { index in
            (
                key: "aircraft.\(index).check",
                value: Data((0..<valueSize).map { UInt8(truncatingIfNeeded: $0 &+ index) })
            )
        }
        print("store.config.entries: \(entries)")
        print("store.config.value_bytes: \(valueSize)")
        print("store.config.kdf_rounds: \(environment.passcodeRounds)")

        try putAndGet(values: values, root: root, environment: environment)
        try passcodeChange(root: root, environment: environment)
        try unlockOverhead(root: root, environment: environment)
        try await sqlcipherRekey(root: root)
    }

    // MARK: put / get against plain GRDB

    // The baseline is plain GRDB written for speed: the same pragmas, one transaction, one
    // prepared statement reused for every row (`cachedStatement`), as the store does.

    private func putAndGet(values: [(key: String, value: Data)], root: URL, environment: SecureStoreEnvironment) throws
    {
        var plainCounter = 0
        var plain: DatabasePool!
        // Each timed put starts on a new, empty database.
        let newPlainDatabase = {
            plainCounter += 1
            plain = try Self.plainDatabase(root.appendingPathComponent("plain-\(plainCounter).sqlite"))
        }
        let plainPut = try Measure.median(repetitions: repetitions, prepare: newPlainDatabase) {
            try plain.write { db in
                let insert = try db.cachedStatement(sql: "INSERT OR REPLACE INTO kv (key, value) VALUES (?, ?)")
                for (key, value) in values {
                    try insert.execute(arguments: [key, value])
                }
            }
        }
        // The same rows through `execute(sql:arguments:)`, which compiles the statement on
        // every call: reported for context, not as the baseline.
        let unpreparedPut = try Measure.median(repetitions: repetitions, prepare: newPlainDatabase) {
            try plain.write { db in
                for (key, value) in values {
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO kv (key, value) VALUES (?, ?)",
                        arguments: [key, value]
                    )
                }
            }
        }
        let plainGet = try Measure.median(repetitions: repetitions) {
            for (key, _) in values {
                _ = try plain.read { db in
                    try Data.fetchOne(db.cachedStatement(sql: "SELECT value FROM kv WHERE key = ?"), arguments: [key])
                }
            }
        }

        var storeCounter = 0
        var store: SecureStore!
        let location = { (index: Int) in
            SecureStoreLocation(directory: root.appendingPathComponent("store-\(index)"), environment: environment)
        }
        let storePut = try Measure.median(
            repetitions: repetitions,
            prepare: {
                store?.close()
                storeCounter += 1
                store = try location(storeCounter).create(protection: .passcode("Bench-Passcode-1"))
            }
        ) {
            try store.write { batch throws(SecureStoreError) in
                for (key, value) in values { try batch.put(value, forKey: key) }
            }
        }
        let storeGet = try Measure.median(repetitions: repetitions) {
            for (key, _) in values { _ = try store.data(forKey: key) }
        }
        store.close()

        Measure.report("store.put.plain_ms", plainPut)
        Measure.report("store.put.encrypted_ms", storePut)
        Measure.report("store.put.ratio", storePut / plainPut)
        Measure.report("store.put.plain_unprepared_ms", unpreparedPut)
        Measure.report("store.put.ratio_to_unprepared", storePut / unpreparedPut)
        Measure.report("store.get.plain_ms", plainGet)
        Measure.report("store.get.encrypted_ms", storeGet)
        Measure.report("store.get.ratio", storeGet / plainGet)
    }

    static func plainDatabase(_ url: URL) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL; PRAGMA secure_delete = ON;")
        }
        let pool = try DatabasePool(path: url.path, configuration: configuration)
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL)")
        }
        return pool
    }

    // MARK: passcode change

    private func passcodeChange(root: URL, environment: SecureStoreEnvironment) throws {
        var results: [Int: Double] = [:]
        for size in passwdSizes {
            let location = SecureStoreLocation(
                directory: root.appendingPathComponent("passwd-\(size)"),
                environment: environment
            )
            let store = try location.create(protection: .passcode("Passcode-Even-0"))
            let value = Data(repeating: 0x5A, count: valueSize)
            var written = 0
            while written < size {
                let batchEnd = min(size, written + 10_000)
                try store.write { batch throws(SecureStoreError) in
                    for index in written..<batchEnd { try batch.put(value, forKey: "entry.\(index)") }
                }
                written = batchEnd
            }
            var flip = false
            let passcodes: [Secret] = ["Passcode-Even-0", "Passcode-Odd-1"]
            results[size] = try Measure.median(repetitions: max(3, repetitions / 2)) {
                let current = passcodes[flip ? 1 : 0]
                let new = passcodes[flip ? 0 : 1]
                try store.changePasscode(current: current, new: new)
                flip.toggle()
            }
            store.close()
            Measure.report("store.passwd.\(Self.label(size))_ms", results[size]!)
        }
        if let small = passwdSizes.first, let large = passwdSizes.last, small != large {
            Measure.report(
                "store.passwd.ratio_\(Self.label(large))_to_\(Self.label(small))",
                results[large]! / results[small]!,
                digits: 3
            )
        }
    }

    static func label(_ size: Int) -> String {
        size % 1_000 == 0 ? "\(size / 1_000)k" : "\(size)"
    }

    // MARK: unlock beyond the key derivation

    private func unlockOverhead(root: URL, environment: SecureStoreEnvironment) throws {
        let location = SecureStoreLocation(directory: root.appendingPathComponent("unlock"), environment: environment)
        let store = try location.create(protection: .passcode("Unlock-Passcode-1"))
        try store.put("value", forKey: "key")
        store.close()
        let runs = max(5, repetitions)
        let kdf = try Measure.keyDerivation(rounds: environment.passcodeRounds, repetitions: runs)
        let unlock = try Measure.median(repetitions: runs) {
            let opened = try location.unlock(passcode: "Unlock-Passcode-1")
            opened.close()
        }
        Measure.report("store.kdf_ms", kdf)
        Measure.report("store.unlock_ms", unlock)
        Measure.report("store.unlock.overhead_ms", max(0, unlock - kdf))
    }

    // MARK: SQLCipher for comparison

    private func sqlcipherRekey(root: URL) async throws {
        let sqlcipher = ExternalTool("sqlcipher")
        guard sqlcipher.executable != nil else {
            print("sqlcipher.rekey: skipped (install the Debian package sqlcipher to compare)")
            return
        }
        let size = passwdSizes.last ?? 100_000
        let database = root.appendingPathComponent("sqlcipher.db").path
        let setup = """
            PRAGMA key = 'old-passphrase';
            CREATE TABLE kv (key TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL);
            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < \(size))
            INSERT INTO kv SELECT 'entry.' || x, randomblob(\(valueSize)) FROM n;
            """
        try await Self.run(sqlcipher, [database], input: setup)
        var flip = false
        let rekey = try await Measure.median(repetitions: 3) {
            let (old, new) = flip ? ("new-passphrase", "old-passphrase") : ("old-passphrase", "new-passphrase")
            try await Self.run(
                sqlcipher,
                [database],
                input: "PRAGMA key = '\(old)';\nPRAGMA rekey = '\(new)';\nSELECT count(*) FROM kv;\n"
            )
            flip.toggle()
        }
        Measure.report("sqlcipher.rekey.\(Self.label(size))_ms", rekey)
    }

    /// Runs sqlcipher with `input` on its standard input; throws unless it succeeds.
    static func run(_ sqlcipher: ExternalTool, _ arguments: [String], input: String) async throws {
        let output = try await sqlcipher.run(arguments, input: Data(input.utf8))
        guard let status = output?.status, status == 0 else {
            throw ValidationError("\(sqlcipher.name) failed (exit status \(output.map { "\($0.status)" } ?? "none"))")
        }
    }
}
