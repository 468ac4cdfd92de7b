import Foundation
import Logging

/// A directory holding several stores side by side, one subdirectory per store ID.
///
/// Stores are independent: each has its own data key, device key and files, so
/// removing one touches nothing else. A store can be shared by several onboarding
/// sessions simply by using the same ID.
public struct SecureStoreRoot: Sendable {
    /// The root directory.
    public let directory: URL
    /// The environment every store under the root uses.
    public let environment: SecureStoreEnvironment

    /// A root at `directory` (created with the first store).
    public init(directory: URL, environment: SecureStoreEnvironment) {
        self.directory = directory
        self.environment = environment
    }

    /// The location of the store with this ID.
    public func location(for id: UUID) -> SecureStoreLocation {
        SecureStoreLocation(
            directory: directory.appendingPathComponent(id.uuidString.lowercased()),
            environment: environment,
            expectedStoreID: id
        )
    }

    /// Whether a store with this ID exists.
    public func contains(_ id: UUID) -> Bool { location(for: id).exists }

    /// The IDs of the stores under the root, sorted.
    public func storeIDs() throws(SecureStoreError) -> [UUID] {
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw .ioFailure("cannot list the store root")
        }
        return names.compactMap(UUID.init(uuidString:)).filter(contains).sorted { $0.uuidString < $1.uuidString }
    }

    /// Destroys the store with this ID and nothing else.
    public func remove(_ id: UUID) throws(SecureStoreError) {
        try location(for: id).destroy()
    }
}
