/// The 15-bit format information and 18-bit version information words
/// (ISO/IEC 18004:2015 7.9 and 7.10, Annex C and Annex D).
enum FormatInformation {
    /// Generator of the (15, 5) BCH code: x^10 + x^8 + x^5 + x^4 + x^2 + x + 1.
    static let formatGenerator = 0b101_0011_0111

    /// XOR mask applied to the format information so it is never all zero.
    static let formatMask = 0b101_0100_0001_0010

    /// Generator of the (18, 6) BCH code: x^12 + x^11 + x^10 + x^9 + x^8 + x^5 + x^2 + 1.
    static let versionGenerator = 0b1_1111_0010_0101

    /// The masked 15-bit format information for a correction level and data mask.
    static func formatBits(correction: QRCode.Correction, mask: Int) -> Int {
        let data = correction.formatBits << 3 | mask
        return bchCodeword(data: data, generator: formatGenerator, degree: 10) ^ formatMask
    }

    /// The 18-bit version information for versions 7...40.
    static func versionBits(version: Int) -> Int {
        bchCodeword(data: version, generator: versionGenerator, degree: 12)
    }

    /// `data` followed by the remainder of `data * x^degree` divided by `generator`.
    private static func bchCodeword(data: Int, generator: Int, degree: Int) -> Int {
        var remainder = data << degree
        var bit = remainder.bitWidth - remainder.leadingZeroBitCount - 1
        while bit >= degree {
            if remainder & (1 << bit) != 0 {
                remainder ^= generator << (bit - degree)
            }
            bit -= 1
        }
        return data << degree | remainder
    }
}
