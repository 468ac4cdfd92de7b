extension QRCode {
    /// A standalone SVG document of the symbol.
    ///
    /// The document has a white background and draws every dark module in one black `<path>`,
    /// one closed rectangle per horizontal run of dark modules, with
    /// `shape-rendering="crispEdges"` so edges stay sharp. The user coordinate system is in
    /// pixels: `viewBox`, `width` and `height` are all `(size + 2 * quietZone) * moduleSize`.
    ///
    /// - Parameters:
    ///   - moduleSize: Pixels per module; values below 1 count as 1, above 64 as 64.
    ///   - quietZone: Light modules around the symbol; the standard asks for 4. Negative
    ///     values count as 0.
    ///   - title: An accessible name, written as the document's `<title>`. It is XML-escaped;
    ///     characters that XML 1.0 does not allow (most C0 controls) are left out.
    /// - Returns: The SVG document, starting with an XML declaration.
    public func svg(moduleSize: Int = 8, quietZone: Int = 4, title: String? = nil) -> String {
        let scale = min(max(1, moduleSize), QRCode.largestModuleSize)
        let margin = min(max(0, quietZone), QRCode.largestQuietZone)
        let extent = (size + 2 * margin) * scale

        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard self[x, y] else {
                    x += 1
                    continue
                }
                let start = x
                while x < size && self[x, y] {
                    x += 1
                }
                let width = (x - start) * scale
                if !path.isEmpty {
                    path += " "
                }
                path += "M\((start + margin) * scale) \((y + margin) * scale)h\(width)v\(scale)h-\(width)z"
            }
        }

        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 \#(extent) \#(extent)" "#
                + #"width="\#(extent)" height="\#(extent)" role="img" shape-rendering="crispEdges">"#,
        ]
        if let title {
            lines.append("<title>\(XMLText.escaped(title))</title>")
        }
        lines.append(##"<rect width="\##(extent)" height="\##(extent)" fill="#ffffff"/>"##)
        lines.append(##"<path fill="#000000" d="\##(path)"/>"##)
        lines.append("</svg>")
        return lines.joined(separator: "\n") + "\n"
    }
}
