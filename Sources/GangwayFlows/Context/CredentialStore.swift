import Foundation
import GangwayStore

/// Where steps keep secrets (tokens, keys) during a flow.
///
/// Until the user's secure store exists, the context holds an ``InMemoryCredentialStore``;
/// once the store step has created or opened the store, the entries move into it and the
/// context holds the ``GangwayStore/SecureStore`` itself.
public protocol CredentialStore: Sendable {
    /// The value under `key`, or `nil`.
    func data(forKey key: String) throws -> Data?
    /// Stores `value` under `key`.
    func put(_ value: Data, forKey key: String) throws
    /// Removes the value under `key`; returns whether there was one.
    @discardableResult
    func removeValue(forKey key: String) throws -> Bool
    /// The names of the stored keys, sorted.
    func keys() throws -> [String]
}

extension SecureStore: CredentialStore {}

extension CredentialStore {
    /// Moves every entry of this store into `store` in one transaction, then empties this
    /// one. Nothing is removed here unless the copy committed.
    public func moveEntries(to store: SecureStore) throws {
        let names = try keys()
        var entries: [(String, Data)] = []
        for name in names {
            if let value = try data(forKey: name) { entries.append((name, value)) }
        }
        try store.write { batch throws(SecureStoreError) in
            for (name, value) in entries { try batch.put(value, forKey: name) }
        }
        for name in names { try removeValue(forKey: name) }
    }
}
