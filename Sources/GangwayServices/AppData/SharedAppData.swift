import Foundation
import GangwayStore
import Synchronization

/// The device's one copy of the app's data, shared by its users (the reference keeps one
/// offline store per device): what the server last sent of each entity set, so that a
/// user who signs in after another reads it offline at once, without a server contact.
///
/// ```swift
/// let shared = SharedAppData(location: SecureStoreLocation(directory: deviceDirectory
///     .appending(path: "shared-data"), environment: environment))
/// let reader = AppDataReader(services: services, shared: shared)
/// ```
///
/// It is a ``GangwayStore/SecureStore`` in no-passcode mode: encrypted and
/// integrity-checked, with its key wrapped by the device's key store, so a reader of the
/// files alone learns nothing. The data is the app's, the same for every user the server
/// serves it to; what a user changes stays in their own store until the server applies
/// it. Erase it when the device's last user goes (``erase()``).
public final class SharedAppData: Sendable {
    public let location: SecureStoreLocation
    /// The store, opened at first use and kept open.
    private let opened = Mutex<SecureStore?>(nil)

    public init(location: SecureStoreLocation) {
        self.location = location
    }

    deinit {
        opened.withLock { $0?.close() }
    }

    /// The store, opened (or made) at first use.
    func store() throws(SecureStoreError) -> SecureStore {
        try open { store throws(SecureStoreError) in store }
    }

    /// Whether the device has the store, opened or not: a device that never kept a copy
    /// has none, and reading finds nothing without making one.
    var exists: Bool { opened.withLock { $0 != nil } || location.exists }

    /// Removes the copy from the device; the next read finds none.
    public func erase() throws(SecureStoreError) {
        try opened.withLock { store throws(SecureStoreError) in
            store?.close()
            store = nil
            guard location.exists else { return }
            try location.destroy()
        }
    }

    private func open<T>(_ body: (SecureStore) throws(SecureStoreError) -> T) throws(SecureStoreError) -> T {
        try opened.withLock { store throws(SecureStoreError) in
            if let store { return try body(store) }
            let opening =
                location.exists ? try location.unlockWithoutPasscode() : try location.create(protection: .noPasscode)
            store = opening
            return try body(opening)
        }
    }
}
