import Foundation

/// Where a device keeps small secrets apart from the data they protect: the role the
/// keychain plays on Apple platforms.
///
/// A store keeps two kinds of key here: its device key (which authenticates the records
/// read before unlock and, in no-passcode mode, wraps the data key) and, when biometric
/// unlock is on, its biometric key. Names are made of letters, digits, `.`, `-` and `_`.
public protocol DeviceKeyStore: Sendable {
    /// The secret stored under `name`, or `nil` if there is none.
    func read(_ name: String) throws -> Data?
    /// Stores `secret` under `name`, replacing any previous one, atomically.
    func write(_ secret: Data, for name: String) throws
    /// Removes the secret stored under `name`; removing a missing one is not an error.
    func delete(_ name: String) throws
}

/// An error from a device key store. It names the key, never its contents.
public struct DeviceKeyStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The key name involved.
    public let name: String
    /// What went wrong.
    public let reason: String

    public var description: String { "device key \(name): \(reason)" }

    static func validate(_ name: String) throws(DeviceKeyStoreError) {
        let allowed = name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                || $0 == "." || $0 == "-" || $0 == "_"
        }
        guard !name.isEmpty, name.count <= 200, allowed, !name.hasPrefix(".") else {
            throw DeviceKeyStoreError(name: "(invalid name)", reason: "key names use letters, digits, '.', '-' and '_'")
        }
    }
}
