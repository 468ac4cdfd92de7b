extension QRCode {
    /// Lines of text that draw the symbol in a terminal, two module rows per line.
    ///
    /// Each character covers one module column of two module rows with the half blocks
    /// `▀` (upper), `▄` (lower), `█` (both) and a space (neither). Plain text cannot choose a
    /// background colour, so, like `qrencode -t UTF8`, the output is inverted: blocks draw the
    /// *light* modules and the quiet zone in the terminal's (usually light) foreground colour,
    /// and dark modules are left as the (usually dark) background. On a terminal with dark
    /// text on a light background the code appears as a negative, which most readers accept.
    /// When the number of rows is odd, the row below the last is treated as light.
    ///
    /// - Parameter quietZone: Light modules around the symbol; negative values count as 0.
    /// - Returns: `(size + 2 * quietZone + 1) / 2` lines of `size + 2 * quietZone` characters,
    ///   without line terminators.
    public func terminalLines(quietZone: Int = 2) -> [String] {
        let margin = max(0, quietZone)
        let extent = size + 2 * margin
        var lines: [String] = []
        lines.reserveCapacity((extent + 1) / 2)
        for top in stride(from: -margin, to: size + margin, by: 2) {
            var line = ""
            for x in -margin..<(size + margin) {
                // Outside the matrix (and the row past the quiet zone) the subscript reports light.
                switch (self[x, top], self[x, top + 1]) {
                case (false, false): line += "█"
                case (false, true): line += "▀"
                case (true, false): line += "▄"
                case (true, true): line += " "
                }
            }
            lines.append(line)
        }
        return lines
    }
}
