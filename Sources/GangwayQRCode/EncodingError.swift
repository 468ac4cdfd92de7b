extension QRCode {
    /// Why a text could not be encoded as a QR Code symbol.
    public enum EncodingError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The text's UTF-8 encoding is `byteCount` bytes long, more than the `maximum`
        /// that a version 40 symbol holds in byte mode at the requested correction level.
        case textTooLong(byteCount: Int, maximum: Int)

        /// A sentence describing the error.
        public var description: String {
            switch self {
            case .textTooLong(let byteCount, let maximum):
                "Text is \(byteCount) bytes in UTF-8; a QR Code holds at most \(maximum) at this level."
            }
        }
    }
}
