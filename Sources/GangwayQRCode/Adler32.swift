/// The Adler-32 checksum that ends a zlib stream (RFC 1950 8.2).
struct Adler32 {
    private static let modulus: UInt32 = 65_521

    private var low: UInt32 = 1
    private var high: UInt32 = 0

    /// Feeds more bytes into the checksum.
    mutating func update(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            low = (low + UInt32(byte)) % Self.modulus
            high = (high + low) % Self.modulus
        }
    }

    /// The checksum of every byte fed so far.
    var value: UInt32 { high << 16 | low }
}
