import Foundation

extension Secret {
    /// The NFKC form of the secret, so that the same passcode typed on keyboards that
    /// produce composed or decomposed, full-width or half-width forms is the same
    /// passcode: for the policy's checks here, and for the key derived from it in the
    /// store.
    public var normalized: String {
        value.precomposedStringWithCompatibilityMapping
    }
}
