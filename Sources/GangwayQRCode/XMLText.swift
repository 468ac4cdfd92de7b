/// Escaping of text for XML 1.0 character data and attribute values.
enum XMLText {
    /// `text` with `&`, `<`, `>`, `"` and `'` replaced by entity references, and characters
    /// outside XML 1.0's `Char` production (C0 controls other than tab, line feed and carriage
    /// return, U+FFFE and U+FFFF) removed.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                continue
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
