/// Arithmetic in GF(2^8) as QR Code uses it: the field polynomial is
/// x^8 + x^4 + x^3 + x^2 + 1 (0x11D) and alpha = 2 generates the multiplicative group.
enum GaloisField {
    /// `exponents[i]` is alpha^i for i in 0..<255, repeated once so sums of two logs index directly.
    static let exponents: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 510)
        var value = 1
        for power in 0..<255 {
            table[power] = UInt8(value)
            table[power + 255] = UInt8(value)
            value <<= 1
            if value & 0x100 != 0 {
                value ^= 0x11D
            }
        }
        return table
    }()

    /// `logarithms[v]` is the i with alpha^i = v, for v in 1...255 (entry 0 is unused).
    static let logarithms: [Int] = {
        var table = [Int](repeating: 0, count: 256)
        for power in 0..<255 {
            table[Int(exponents[power])] = power
        }
        return table
    }()

    /// The product of two field elements.
    static func multiply(_ lhs: UInt8, _ rhs: UInt8) -> UInt8 {
        guard lhs != 0, rhs != 0 else { return 0 }
        return exponents[logarithms[Int(lhs)] + logarithms[Int(rhs)]]
    }

    /// alpha raised to `power`, for power in 0..<255.
    static func alpha(_ power: Int) -> UInt8 {
        exponents[power % 255]
    }
}
