/// Assembles greyscale PNG files (PNG specification, ISO/IEC 15948) from filtered scanlines.
enum PNGWriter {
    /// The eight bytes every PNG file starts with.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// A complete greyscale (colour type 0) PNG file.
    ///
    /// - Parameter scanlines: Every row's filter-type byte followed by its packed pixels.
    static func image(width: Int, height: Int, bitDepth: UInt8, scanlines: [UInt8]) -> [UInt8] {
        var header: [UInt8] = []
        header += bigEndian(UInt32(width))
        header += bigEndian(UInt32(height))
        // Bit depth, colour type 0 (greyscale), deflate compression, adaptive filtering, no
        // interlace.
        header += [bitDepth, 0, 0, 0, 0]

        var file = signature
        file += chunk("IHDR", header)
        file += chunk("IDAT", ZlibStoredStream.wrap(scanlines))
        file += chunk("IEND", [])
        return file
    }

    /// Length, type, data and the CRC-32 of type and data.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        var crc = CRC32()
        crc.update(typeBytes)
        crc.update(data)
        return bigEndian(UInt32(data.count)) + typeBytes + data + bigEndian(crc.value)
    }

    /// The four bytes of `value`, most significant first.
    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
