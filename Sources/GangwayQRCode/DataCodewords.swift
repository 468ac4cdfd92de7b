/// Builds the data codeword sequence of a byte-mode symbol (ISO/IEC 18004:2015 7.4).
enum DataCodewords {
    /// Mode indicator of the 8-bit byte mode (Table 2).
    static let byteModeIndicator = 0b0100

    /// Bits of the character count indicator in byte mode (Table 3):
    /// 8 for versions 1 to 9, 16 for versions 10 to 40.
    static func characterCountBits(version: Int) -> Int {
        version <= 9 ? 8 : 16
    }

    /// The largest number of bytes that fit in `version` at `correction` in one byte-mode segment.
    static func byteCapacity(version: Int, correction: QRCode.Correction) -> Int {
        let dataBits = BlockLayout(version: version, correction: correction).dataCodewords * 8
        return (dataBits - 4 - characterCountBits(version: version)) / 8
    }

    /// Mode indicator, count, data, terminator, zero bits to a byte boundary, then the pad
    /// codewords 0xEC and 0x11 alternately until the symbol's data capacity is full.
    static func make(bytes: [UInt8], version: Int, correction: QRCode.Correction) -> [UInt8] {
        let capacity = BlockLayout(version: version, correction: correction).dataCodewords
        var buffer = BitBuffer()
        buffer.append(byteModeIndicator, width: 4)
        buffer.append(bytes.count, width: characterCountBits(version: version))
        for byte in bytes {
            buffer.append(Int(byte), width: 8)
        }
        precondition(buffer.count <= capacity * 8, "data exceeds the version's capacity")
        buffer.append(0, width: min(4, capacity * 8 - buffer.count))

        var codewords = buffer.bytes
        let padding: [UInt8] = [0xEC, 0x11]
        var padIndex = 0
        while codewords.count < capacity {
            codewords.append(padding[padIndex])
            padIndex = 1 - padIndex
        }
        return codewords
    }
}
