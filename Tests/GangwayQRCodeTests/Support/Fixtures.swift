@testable import GangwayQRCode

/// Test inputs shared between suites.
enum Fixtures {
    /// Byte-mode capacities from ISO/IEC 18004:2015 Table 7 ("Number of symbol characters and
    /// input data capacity for QR Code"), column "8-bit Byte", for a few versions: L, M, Q, H.
    static let byteCapacities: [Int: [QRCode.Correction: Int]] = [
        1: [.low: 17, .medium: 14, .quartile: 11, .high: 7],
        2: [.low: 32, .medium: 26, .quartile: 20, .high: 14],
        7: [.low: 154, .medium: 122, .quartile: 86, .high: 64],
        9: [.low: 230, .medium: 180, .quartile: 130, .high: 98],
        10: [.low: 271, .medium: 213, .quartile: 151, .high: 119],
        20: [.low: 858, .medium: 666, .quartile: 482, .high: 382],
        40: [.low: 2953, .medium: 2331, .quartile: 1663, .high: 1273],
    ]

    /// Deterministic printable ASCII text of exactly `length` bytes; `seed` varies the content.
    static func asciiText(length: Int, seed: Int = 0) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.:/?&=")
        var state = UInt32(truncatingIfNeeded: 2_654_435_761 &* (seed + 1))
        var text = ""
        for _ in 0..<length {
            state = state &* 1_664_525 &+ 1_013_904_223
            text.append(alphabet[Int(state >> 16) % alphabet.count])
        }
        return text
    }

    /// An activation link of about 120 characters.
    static let activationLink =
        "https://gangway.example/activate?app=com.example.crew&code="
        + "Q7hX2mR9vK4pL8sW3nJ6tB1yF5cD0gZeA2uV7iO9rT4kM8wP3xE6bN1qS5jH0lC"

    /// The name of a correction level as qrencode's `-l` option spells it.
    static func qrencodeLevel(_ correction: QRCode.Correction) -> String {
        switch correction {
        case .low: "L"
        case .medium: "M"
        case .quartile: "Q"
        case .high: "H"
        }
    }
}
