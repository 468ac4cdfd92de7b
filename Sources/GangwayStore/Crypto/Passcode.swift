import GangwayPolicy

/// Passcode handling shared by every key slot.
enum Passcode {
    /// The bytes a key is derived from: the secret's NFKC form in UTF-8. This is the one
    /// place the store reads a passcode's text.
    static func bytes(_ passcode: Secret) -> [UInt8] {
        Array(passcode.normalized.utf8)
    }
}
