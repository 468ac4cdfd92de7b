import Foundation
import GangwayProtocol

/// Checks the constraints the API document states, which the generated code does not.
enum Validation {
    /// Lengths count Unicode code points, as JSON Schema's `minLength` and `maxLength` do
    /// (``TextRules/lengthProblem(_:_:)``).
    static func length(_ value: String, _ field: String, _ range: ClosedRange<Int>) throws(APIError) {
        if let problem = TextRules.lengthProblem(value, range) {
            throw .badRequest("\(field) \(problem).", code: .invalidField)
        }
    }

    /// A name or label: a length and no control characters (``TextRules/textProblem(_:_:)``).
    static func text(_ value: String, _ field: String, _ range: ClosedRange<Int>) throws(APIError) {
        if let problem = TextRules.textProblem(value, range) {
            throw .badRequest("\(field) \(problem).", code: .invalidField)
        }
    }

    /// A name a person reads (an app's, a user's display name), by the rule the admin
    /// client checks too (``TextRules/nameProblem(_:)``).
    static func name(_ value: String, _ field: String) throws(APIError) {
        if let problem = TextRules.nameProblem(value) { throw .badRequest("\(field) \(problem).", code: .invalidField) }
    }

    /// Whether `value` holds a control character (``TextRules``): never in a name the
    /// server stores, so such a name needs no lookup.
    static func hasControlCharacters(_ value: String) -> Bool {
        TextRules.hasControlCharacters(value)
    }

    /// How many records an admin listing returns: `limit`
    /// (``GangwayProtocol/APIDefaults/listLimit`` when not given), within
    /// ``GangwayProtocol/APILimits/listLimit``.
    static func listLimit(_ limit: Int?) throws(APIError) -> Int {
        let limit = limit ?? APIDefaults.listLimit
        guard APILimits.listLimit.contains(limit) else {
            throw .badRequest(
                "limit must be between \(APILimits.listLimit.lowerBound) and \(APILimits.listLimit.upperBound).",
                code: .invalidField
            )
        }
        return limit
    }

    /// An app or device ID: a letter or digit, then letters, digits, `.`, `_` or `-`.
    static func identifier(_ value: String, _ field: String) throws(APIError) {
        if let problem = IdentifierRule.identifier.problem(value) {
            throw .badRequest("\(field) \(problem).", code: .invalidField)
        }
    }

    static func username(_ value: String) throws(APIError) {
        if let problem = IdentifierRule.username.problem(value) {
            throw .badRequest("username \(problem).", code: .invalidField)
        }
    }

    static func newPassword(_ value: String) throws(APIError) {
        guard APILimits.password.contains(value.unicodeScalars.count) else {
            throw .badRequest(
                "password must be \(APILimits.password.lowerBound) to \(APILimits.password.upperBound) characters long.",
                code: .invalidPassword
            )
        }
        // Spaces alone are as good as no password.
        guard !TextRules.isBlank(value) else {
            throw .badRequest("password must not be only spaces.", code: .invalidPassword)
        }
    }

    /// A domain as the document's pattern states it: two or more dot-separated labels of
    /// letters, digits and `-`. Returned in lowercase.
    static func emailDomain(_ value: String) throws(APIError) -> String {
        let domain = value.lowercased()
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        let label: (Substring) -> Bool = { label in
            !label.isEmpty && label.unicodeScalars.allSatisfy { $0.isASCIIAlphanumeric || $0 == "-" }
        }
        guard domain.unicodeScalars.count <= 320, labels.count >= 2, labels.allSatisfy(label) else {
            throw .badRequest("'\(value.prefix(64))' is not a domain name.", code: .invalidDomain)
        }
        return domain
    }
}

/// A dotted version number such as `1.4.2`, compared part by part.
struct AppVersion: Comparable, Sendable {
    var parts: [Int]

    init(_ text: String) throws(APIError) {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        let parts = pieces.compactMap { piece in
            piece.count <= 9 && !piece.isEmpty && piece.allSatisfy(\.isASCIIDigit) ? Int(piece) : nil
        }
        guard !pieces.isEmpty, pieces.count <= 4, parts.count == pieces.count else {
            throw .badRequest("'\(text.prefix(32))' is not a version such as 1.4.2.", code: .invalidVersion)
        }
        self.parts = parts
    }

    static func < (lhs: AppVersion, rhs: AppVersion) -> Bool {
        let count = max(lhs.parts.count, rhs.parts.count)
        let left = lhs.parts + Array(repeating: 0, count: count - lhs.parts.count)
        let right = rhs.parts + Array(repeating: 0, count: count - rhs.parts.count)
        return left.lexicographicallyPrecedes(right)
    }

    static func == (lhs: AppVersion, rhs: AppVersion) -> Bool { !(lhs < rhs) && !(rhs < lhs) }
}

extension Validation {
    /// Whether `text` is base64url without padding, `length` characters long.
    static func isBase64URL(_ text: String, length: ClosedRange<Int>) -> Bool {
        length.contains(text.utf8.count)
            && text.unicodeScalars.allSatisfy { $0.isASCIIAlphanumeric || $0 == "-" || $0 == "_" }
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
