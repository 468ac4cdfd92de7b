extension QRCode {
    /// A PNG image of the symbol: 1-bit greyscale, black modules on white.
    ///
    /// The image is `(size + 2 * quietZone) * moduleSize` pixels square, made of IHDR, IDAT
    /// and IEND chunks. The image data is a zlib stream of uncompressed (stored) deflate blocks,
    /// so no compression library is involved; at one bit per pixel it stays small.
    ///
    /// - Parameters:
    ///   - moduleSize: Pixels per module; values below 1 count as 1, above 64 as 64.
    ///   - quietZone: Light modules around the symbol; the standard asks for 4. Negative
    ///     values count as 0.
    /// - Returns: The bytes of the PNG file.
    public func png(moduleSize: Int = 8, quietZone: Int = 4) -> [UInt8] {
        let scale = min(max(1, moduleSize), QRCode.largestModuleSize)
        let margin = min(max(0, quietZone), QRCode.largestQuietZone)
        let extent = (size + 2 * margin) * scale
        let rowBytes = (extent + 7) / 8

        var scanlines: [UInt8] = []
        scanlines.reserveCapacity(extent * (rowBytes + 1))
        for moduleY in -margin..<(size + margin) {
            // Filter type 0 (None), then pixels packed most significant bit first; 1 is white.
            var row = [UInt8](repeating: 0, count: rowBytes + 1)
            for pixelX in 0..<extent where !self[pixelX / scale - margin, moduleY] {
                row[1 + pixelX / 8] |= 0x80 >> UInt8(pixelX % 8)
            }
            for _ in 0..<scale {
                scanlines += row
            }
        }
        return PNGWriter.image(width: extent, height: extent, bitDepth: 1, scanlines: scanlines)
    }
}
