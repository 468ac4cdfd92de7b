import Foundation
import Synchronization

/// A device key store that keeps its secrets in memory, for tests and for apps that
/// hold no key beyond the process's life.
public final class InMemoryDeviceKeyStore: DeviceKeyStore {
    private let secrets = Mutex<[String: Data]>([:])

    /// Creates an empty store.
    public init() {}

    public func read(_ name: String) throws -> Data? {
        try DeviceKeyStoreError.validate(name)
        return secrets.withLock { $0[name] }
    }

    public func write(_ secret: Data, for name: String) throws {
        try DeviceKeyStoreError.validate(name)
        secrets.withLock { $0[name] = secret }
    }

    public func delete(_ name: String) throws {
        try DeviceKeyStoreError.validate(name)
        _ = secrets.withLock { $0.removeValue(forKey: name) }
    }

    /// The names of the stored secrets, sorted.
    public var names: [String] { secrets.withLock { $0.keys.sorted() } }
}
