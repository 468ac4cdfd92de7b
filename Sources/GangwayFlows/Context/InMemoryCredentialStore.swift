import Foundation
import Synchronization

/// A credential store in memory, for the part of a flow before the secure store exists.
public final class InMemoryCredentialStore: CredentialStore {
    private let entries = Mutex<[String: Data]>([:])

    public init() {}

    public func data(forKey key: String) -> Data? { entries.withLock { $0[key] } }

    public func put(_ value: Data, forKey key: String) { entries.withLock { $0[key] = value } }

    @discardableResult
    public func removeValue(forKey key: String) -> Bool { entries.withLock { $0.removeValue(forKey: key) != nil } }

    public func keys() -> [String] { entries.withLock { $0.keys.sorted() } }
}
