import Foundation

/// Passcode handling shared by every key slot.
enum Passcode {
    /// NFKC normalisation, so that the same passcode typed on keyboards that produce
    /// composed or decomposed, full-width or half-width forms unlocks the same store.
    static func normalize(_ passcode: String) -> String {
        passcode.precomposedStringWithCompatibilityMapping
    }

    /// The bytes a key is derived from.
    static func bytes(_ passcode: String) -> [UInt8] {
        Array(normalize(passcode).utf8)
    }
}
