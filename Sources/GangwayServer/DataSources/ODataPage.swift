import Foundation
import GangwayProtocol
import GangwayServerStorage

/// One page of an entity set as an OData v4 service answers it in JSON: its entities and
/// removed entities (in `value`), and the link to the next page (`@odata.nextLink`) or,
/// on the last page of a read that tracks changes, the link to read the changes from
/// (`@odata.deltaLink`).
///
/// An entity becomes an ID (its key property, a string or a number) and its fields: each
/// property of a string, a number (as its text is written), a boolean (`true`, `false`)
/// or `null` (the field is left out). Annotations (`@odata.etag`, `Name@odata.type`) are
/// not fields. A removed entity (`@removed` in 4.01, `@odata.removed` in 4.0) is named by
/// its key property or, failing that, by its `@id` (`Checks('A-1')`, `Checks(7)`). An
/// entity with a property of an object or an array (a complex or collection value) is
/// refused alone: a set's fields are flat. OData 4.0's `$deletedEntity` form with only
/// an `id` URL is read as 4.01's.
struct ODataPage: Sendable {
    /// What a row of `value` is.
    enum Row: Sendable, Equatable {
        case entity(id: String, fields: [String: String])
        case removed(id: String)
        /// A row that is neither: why, and its ID when it has one.
        case refused(id: String, code: String, message: String)
    }

    /// The page is not an OData JSON page: why, in words that hold no value of it.
    struct Unreadable: Error, Sendable {
        var reason: String
    }

    var rows: [Row] = []
    var nextLink: String?
    var deltaLink: String?

    /// Reads a page whose entities are keyed by `keyProperty`.
    static func read(_ bytes: UnsafeRawBufferPointer, keyProperty: String) throws(Unreadable) -> ODataPage {
        var page = ODataPage()
        var sawValue = false
        var error: String?
        var scanner = JSONScanner(bytes)
        do throws(JSONScanner.NotRead) {
            try scanner.object { scanner, key throws(JSONScanner.NotRead) in
                switch key {
                case "value":
                    sawValue = true
                    try scanner.array { scanner throws(JSONScanner.NotRead) in
                        page.rows.append(try row(&scanner, keyProperty: keyProperty))
                    }
                case "@odata.nextLink", "@nextLink":
                    page.nextLink = try scanner.null() ? nil : scanner.string()
                case "@odata.deltaLink", "@deltaLink":
                    page.deltaLink = try scanner.null() ? nil : scanner.string()
                case "error":
                    var code = "no code"
                    try scanner.object { scanner, member throws(JSONScanner.NotRead) in
                        if member == "code", scanner.nextKind() == .string {
                            code = TextRules.shown(try scanner.string(), limit: 64)
                        } else {
                            try scanner.skipValue()
                        }
                    }
                    error = code
                default:
                    try scanner.skipValue()
                }
            }
            try scanner.end()
        } catch {
            throw Unreadable(reason: "The backend's page is not JSON the server reads.")
        }
        if let error { throw Unreadable(reason: "The backend answered with an OData error (\(error)).") }
        guard sawValue else { throw Unreadable(reason: "The backend's page has no value array.") }
        return page
    }

    /// One entity as a backend answers a write of it (`Prefer: return=representation`):
    /// its fields, by the rules of a page's row; `nil` when the text is no entity of a set
    /// keyed by `keyProperty`.
    static func entity(_ bytes: UnsafeRawBufferPointer, keyProperty: String) -> (id: String, fields: [String: String])?
    {
        var scanner = JSONScanner(bytes)
        do throws(JSONScanner.NotRead) {
            let read = try row(&scanner, keyProperty: keyProperty)
            try scanner.end()
            guard case .entity(let id, let fields) = read else { return nil }
            return (id, fields)
        } catch {
            return nil
        }
    }

    /// The `code` and `message` of an OData error document, when the text is one.
    static func error(_ bytes: UnsafeRawBufferPointer) -> (code: String, message: String)? {
        var scanner = JSONScanner(bytes)
        var code: String?
        var message: String?
        do throws(JSONScanner.NotRead) {
            try scanner.object { scanner, key throws(JSONScanner.NotRead) in
                guard key == "error" else { return try scanner.skipValue() }
                try scanner.object { scanner, member throws(JSONScanner.NotRead) in
                    switch (member, scanner.nextKind()) {
                    case ("code", .string): code = try scanner.string()
                    case ("message", .string): message = try scanner.string()
                    default: try scanner.skipValue()
                    }
                }
            }
            try scanner.end()
        } catch {
            return nil
        }
        guard let code else { return nil }
        return (code, message ?? "")
    }

    /// One member of `value`.
    private static func row(_ scanner: inout JSONScanner, keyProperty: String) throws(JSONScanner.NotRead) -> Row {
        var id: String?
        var link: String?
        var removed = false
        var fields: [String: String] = [:]
        var nested: String?
        var badKey = false
        try scanner.object { scanner, name throws(JSONScanner.NotRead) in
            if name == keyProperty {
                switch scanner.nextKind() {
                case .string: id = try scanner.string()
                case .number: id = try scanner.numberText()
                default:
                    badKey = true
                    try scanner.skipValue()
                }
                return
            }
            switch name {
            case "@removed", "@odata.removed":
                removed = true
                try scanner.skipValue()
                return
            case "@id", "@odata.id":
                link = scanner.nextKind() == .string ? try scanner.string() : nil
                if link == nil { try scanner.skipValue() }
                return
            default:
                break
            }
            if name.utf8.contains(UInt8(ascii: "@")) {
                try scanner.skipValue()
                return
            }
            switch scanner.nextKind() {
            case .string: fields[name] = try scanner.string()
            case .number: fields[name] = try scanner.numberText()
            case .bool: fields[name] = try scanner.bool() ? "true" : "false"
            case .null: _ = scanner.null()
            case .object, .array, nil:
                if nested == nil { nested = name }
                try scanner.skipValue()
            }
        }
        if removed {
            // OData 4.0's deleted entity names itself by an `id` URL.
            guard let key = id ?? link.flatMap(keyInLink) ?? fields["id"].flatMap(keyInLink) else {
                return .refused(id: "", code: "INVALID_LINE", message: "A removed entity names no key.")
            }
            return .removed(id: key)
        }
        guard let id, !badKey else {
            return .refused(
                id: "",
                code: "INVALID_LINE",
                message:
                    "An entity has no key property \(TextRules.shown(keyProperty, limit: 64)), a string or a number."
            )
        }
        if let nested {
            return .refused(
                id: id,
                code: "INVALID_FIELD",
                message: "The property \(TextRules.shown(nested, limit: 64)) holds an object or an array; a set's "
                    + "fields are flat."
            )
        }
        return .entity(id: id, fields: fields)
    }

    /// The key an entity's `@id` ends with: `Checks('A-1')` → `A-1` (a quote doubled
    /// inside is one), `Checks(7)` → `7`, `Checks(ID='A-1')` → `A-1`; `nil` for a link
    /// of another form (a composite key among them).
    static func keyInLink(_ link: String) -> String? {
        guard link.hasSuffix(")"), let open = link.lastIndex(of: "(") else { return nil }
        var inner = Substring(link[link.index(after: open)..<link.index(before: link.endIndex)])
        if let equals = inner.firstIndex(of: "="), !inner[..<equals].contains("'") {
            inner = inner[inner.index(after: equals)...]
        }
        if inner.hasPrefix("'") {
            guard inner.count >= 2, inner.hasSuffix("'") else { return nil }
            let quoted = inner.dropFirst().dropLast()
            let text = quoted.replacingOccurrences(of: "''", with: "'")
            guard !text.isEmpty else { return nil }
            return (text.removingPercentEncoding ?? text)
        }
        guard !inner.isEmpty, !inner.contains(","), !inner.contains("'") else { return nil }
        return String(inner)
    }
}
