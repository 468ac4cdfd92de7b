/// The CRC-32 of ISO 3309 / ITU-T V.42 that PNG chunks carry (reflected polynomial 0xEDB88320).
struct CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
        }
        return value
    }

    private var register: UInt32 = 0xFFFF_FFFF

    /// Feeds more bytes into the checksum.
    mutating func update(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            register = Self.table[Int((register ^ UInt32(byte)) & 0xFF)] ^ (register >> 8)
        }
    }

    /// The checksum of every byte fed so far.
    var value: UInt32 { register ^ 0xFFFF_FFFF }
}
