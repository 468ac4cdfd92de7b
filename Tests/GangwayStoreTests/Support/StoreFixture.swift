import Foundation
import GRDB
import GangwayPolicy
import GangwayTesting
import Logging
import Synchronization
import Testing

@_spi(Testing) @testable import GangwayStore

/// The device key store backends every storage test runs against.
enum DeviceKeyBackend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case file
    case memory

    var testDescription: String { rawValue }
}

/// A temporary store directory with a fast key derivation, a manual clock and a chosen
/// device key store.
final class StoreFixture: Sendable {
    static let passcode: Secret = "Correct-Horse-42"
    static let otherPasscode: Secret = "Battery-Staple-77"

    let temporary: TemporaryDirectory
    let deviceKeys: any DeviceKeyStore
    let clock = ManualWallClock()
    let biometrics = SimulatedBiometrics()
    let logs = LogCapture()

    init(_ backend: DeviceKeyBackend = .memory) throws {
        temporary = try TemporaryDirectory(prefix: "gangway-store-test")
        switch backend {
        case .file: deviceKeys = FileDeviceKeyStore(directory: temporary.appending("device-keys"))
        case .memory: deviceKeys = InMemoryDeviceKeyStore()
        }
    }

    deinit { temporary.remove() }

    func environment(
        rounds: Int = PasscodeKeyDerivation.minimumRounds,
        fault: (@Sendable (FaultPoint) throws -> Void)? = nil
    ) -> SecureStoreEnvironment {
        var environment = SecureStoreEnvironment(
            deviceKeys: deviceKeys,
            biometrics: biometrics,
            passcodeRounds: rounds,
            now: clock.now,
            logger: logs.logger
        )
        environment.faultInjector = fault
        return environment
    }

    var directory: URL { temporary.appending("store") }

    var databaseURL: URL { directory.appendingPathComponent("store.sqlite") }

    func location(
        rounds: Int = PasscodeKeyDerivation.minimumRounds,
        fault: (@Sendable (FaultPoint) throws -> Void)? = nil
    )
        -> SecureStoreLocation
    {
        SecureStoreLocation(directory: directory, environment: environment(rounds: rounds, fault: fault))
    }

    /// Creates a passcode store with a few entries, closed again.
    @discardableResult
    func makeStore(
        policy: PasscodePolicy = PasscodePolicy(retryLimit: 5),
        entries: [String: String] = ["fuel": "8200 kg", "tyres": "ok"]
    ) throws -> UUID {
        let store = try location().create(protection: .passcode(Self.passcode), policy: policy)
        for (key, value) in entries { try store.put(value, forKey: key) }
        defer { store.close() }
        return store.id
    }

    /// Runs SQL directly against the store's database file, as an attacker with the
    /// files would.
    func tamper(_ sql: String, arguments: StatementArguments = []) throws {
        let queue = try DatabaseQueue(path: databaseURL.path)
        try queue.write { try $0.execute(sql: sql, arguments: arguments) }
        try queue.close()
    }

    func rawBytes() throws -> Data {
        var data = Data()
        for suffix in ["", "-wal"] {
            let url = URL(fileURLWithPath: databaseURL.path + suffix)
            if let bytes = try? Data(contentsOf: url) { data.append(bytes) }
        }
        return data
    }
}

extension Data {
    func contains(_ text: String) -> Bool {
        range(of: Data(text.utf8)) != nil
    }
}

extension StoreFixture {
    /// Flips one bit of one byte of a blob column in every matching row.
    func flipByte(table: String, column: String, key: String, offset: Int, where condition: String = "1") throws {
        let queue = try DatabaseQueue(path: databaseURL.path)
        try queue.write { db in
            let rows = try Row.fetchAll(db, sql: "SELECT \(key) AS k, \(column) AS v FROM \(table) WHERE \(condition)")
            for row in rows {
                var bytes: Data = row["v"]
                let index = bytes.startIndex + min(offset, bytes.count - 1)
                bytes[index] ^= 0x01
                try db.execute(
                    sql: "UPDATE \(table) SET \(column) = ? WHERE \(key) = ?",
                    arguments: [bytes, row["k"] as DatabaseValue]
                )
            }
        }
        try queue.close()
    }
}
