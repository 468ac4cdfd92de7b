/// An append-only sequence of bits, most significant bit first.
struct BitBuffer {
    /// The bits appended so far.
    private(set) var bits: [Bool] = []

    /// The number of bits appended so far.
    var count: Int { bits.count }

    /// Appends the low `width` bits of `value`, most significant first.
    mutating func append(_ value: Int, width: Int) {
        for shift in stride(from: width - 1, through: 0, by: -1) {
            bits.append((value >> shift) & 1 == 1)
        }
    }

    /// The bits packed into bytes; a final partial byte is padded with zero bits.
    var bytes: [UInt8] {
        var result = [UInt8](repeating: 0, count: (bits.count + 7) / 8)
        for (index, bit) in bits.enumerated() where bit {
            result[index / 8] |= 0x80 >> UInt8(index % 8)
        }
        return result
    }
}
