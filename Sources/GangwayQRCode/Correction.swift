extension QRCode {
    /// The error correction level: how much of the symbol can be damaged and still be read.
    public enum Correction: Sendable, Equatable, Hashable, CaseIterable {
        /// Level L: about 7% of the codewords can be restored.
        case low
        /// Level M: about 15% of the codewords can be restored.
        case medium
        /// Level Q: about 25% of the codewords can be restored.
        case quartile
        /// Level H: about 30% of the codewords can be restored.
        case high

        /// The two error correction level bits of the format information
        /// (ISO/IEC 18004:2015 Table 12): L = 01, M = 00, Q = 11, H = 10.
        var formatBits: Int {
            switch self {
            case .low: 0b01
            case .medium: 0b00
            case .quartile: 0b11
            case .high: 0b10
            }
        }

        /// The row of this level in the error correction tables (L, M, Q, H).
        var tableIndex: Int {
            switch self {
            case .low: 0
            case .medium: 1
            case .quartile: 2
            case .high: 3
            }
        }
    }
}
