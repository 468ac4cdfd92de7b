import Foundation
import GangwayProtocol
import Testing

@Suite("JSON read a value at a time reads what JSONDecoder reads, and stops at anything else")
struct JSONScannerTests {
    /// Runs `body` on a scanner of `text`; `nil` when the scanner stops.
    static func scan<Value>(_ text: String, _ body: (inout JSONScanner) throws(JSONScanner.NotRead) -> Value) -> Value?
    {
        Array(text.utf8).withUnsafeBytes { buffer in
            var scanner = JSONScanner(buffer)
            do throws(JSONScanner.NotRead) {
                let value = try body(&scanner)
                try scanner.end()
                return value
            } catch {
                return nil
            }
        }
    }

    static func string(_ text: String) -> String? {
        scan(text) { scanner throws(JSONScanner.NotRead) in try scanner.string() }
    }

    static func integer(_ text: String) -> Int64? {
        scan(text) { scanner throws(JSONScanner.NotRead) in try scanner.integer() }
    }

    static func map(_ text: String) -> [String: String]? {
        scan(text) { scanner throws(JSONScanner.NotRead) in
            var map: [String: String] = [:]
            try scanner.object { scanner, key throws(JSONScanner.NotRead) in map[key] = try scanner.string() }
            return map
        }
    }

    static let awkward = [
        "", "plain", "say \"hi\"", "C:\\dir\\", "a/b", "line\nnext\ttab\u{1}\u{1F}\u{7F}", "\u{0}", "Zoë",
        "✈️👩🏽‍🔧", "evil\u{202E}gpj", "١٢٣", "\u{FFFF}\u{10FFFF}",
    ]

    @Test func stringsReadAsWrittenByEitherWriter() throws {
        let encoder = JSONEncoder()
        for text in Self.awkward {
            var written: [UInt8] = []
            JSONBytes.string(text, into: &written)
            #expect(Self.string(String(decoding: written, as: UTF8.self)) == text)
            #expect(try JSONDecoder().decode(String.self, from: Data(written)) == text)
            let foundation = String(decoding: try encoder.encode(text), as: UTF8.self)
            #expect(Self.string(foundation) == text, "\(foundation)")
        }
        #expect(Self.string(#" "\/\u00e9\ud83d\ude00\b\f\n\r\t\"\\" "#) == "/é😀\u{8}\u{C}\n\r\t\"\\")
        #expect(Self.string(#""\u00E9\u00e9""#) == "éé")
    }

    @Test func whatJSONDecoderRefusesInAStringStopsTheScanner() {
        for text in [
            "\"a", "\"a\u{1}b\"", #""\x""#, #""\u12""#, #""\u12G4""#, #""\ud83d""#, #""\ud83dx""#, #""\ude00""#,
            #""\ud83d\u0041""#, "'a'", "a", "",
        ] {
            #expect(Self.string(text) == nil, "\(text)")
        }
        // Bytes that are not UTF-8, raw or after an escape.
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0x5C, 0x6E, 0xED, 0xA0, 0x80, 0x22]] {
            let read = bytes.withUnsafeBytes { buffer in
                var scanner = JSONScanner(buffer)
                return try? scanner.string()
            }
            #expect(read == nil, "\(bytes)")
            #expect((try? JSONDecoder().decode(String.self, from: Data(bytes))) == nil)
        }
    }

    @Test func integersReadWhenTheyAreDigitsThatFit() {
        for value: Int64 in [0, 1, -1, 42, Int64.max, Int64.min, 1_000_000_000_000] {
            #expect(Self.integer(String(value)) == value)
        }
        #expect(Self.integer("-0") == 0)
        #expect(Self.integer(" 7 ") == 7)
        // Left to JSONDecoder: a fraction, an exponent; not JSON: a leading zero, a plus.
        for text in ["01", "+1", "1.0", "1e2", "1E2", "-", "", "9223372036854775808", "-9223372036854775809", "1x"] {
            #expect(Self.integer(text) == nil, "\(text)")
        }
    }

    @Test func objectsAndArraysReadMemberByMember() {
        #expect(Self.map(#"{}"#) == [:])
        #expect(Self.map(" { \"a\" : \"b\" ,\n\t\"c\":\"d\" } ") == ["a": "b", "c": "d"])
        for text in [#"{"a":"b",}"#, #"{"a" "b"}"#, #"{"a":"b""#, #"{a:"b"}"#, #"["a"]"#, #"{"a":"b"}}"#, "{"] {
            #expect(Self.map(text) == nil, "\(text)")
        }
        let list = Self.scan(#"[1, 2 ,3]"#) { scanner throws(JSONScanner.NotRead) in
            var items: [Int64] = []
            try scanner.array { scanner throws(JSONScanner.NotRead) in items.append(try scanner.integer()) }
            return items
        }
        #expect(list == [1, 2, 3])
        #expect(Self.scan("true") { scanner throws(JSONScanner.NotRead) in try scanner.bool() } == true)
        #expect(Self.scan(" false") { scanner throws(JSONScanner.NotRead) in try scanner.bool() } == false)
        #expect(Self.scan("null") { scanner in scanner.null() } == true)
        #expect(Self.scan("nul") { scanner throws(JSONScanner.NotRead) in try scanner.bool() } == nil)
    }

    @Test func anyValueIsSkippedWholeAndNestingIsBounded() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let text = Self.randomValue(depth: 0, using: &generator)
            // Valid JSON, as JSONDecoder says: skipped whole.
            _ = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
            #expect(
                Self.scan(text) { scanner throws(JSONScanner.NotRead) in try scanner.skipValue() } != nil,
                "\(text)"
            )
            // Cut short anywhere but in its trailing space: never a value.
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            let bytes = Array(trimmed.utf8)
            let cut = Int.random(in: 0..<bytes.count, using: &generator)
            let prefix = String(decoding: bytes[..<cut], as: UTF8.self)
            if (try? JSONSerialization.jsonObject(with: Data(prefix.utf8), options: .fragmentsAllowed)) == nil {
                #expect(
                    Self.scan(prefix) { scanner throws(JSONScanner.NotRead) in try scanner.skipValue() } == nil,
                    "\(prefix)"
                )
            }
        }
        func nested(_ depth: Int) -> String {
            String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        }
        #expect(
            Self.scan(nested(JSONScanner.depthLimit + 1)) { scanner throws(JSONScanner.NotRead) in
                try scanner.skipValue()
            } == nil
        )
        #expect(
            Self.scan(nested(JSONScanner.depthLimit)) { scanner throws(JSONScanner.NotRead) in try scanner.skipValue() }
                != nil
        )
    }

    @Test func randomMapsReadAsJSONDecoderReadsThem() throws {
        var generator = SystemRandomNumberGenerator()
        let encoder = JSONEncoder()
        for _ in 0..<500 {
            var map: [String: String] = [:]
            for _ in 0..<Int.random(in: 0...6, using: &generator) {
                map[Self.randomText(using: &generator)] = Self.randomText(using: &generator)
            }
            for text in [String(decoding: try encoder.encode(map), as: UTF8.self), FlatJSON.text(map)] {
                #expect(Self.map(text) == map, "\(text)")
                #expect(try JSONDecoder().decode([String: String].self, from: Data(text.utf8)) == map)
            }
        }
    }

    static func randomText(using generator: inout SystemRandomNumberGenerator) -> String {
        let pieces = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\u{1}", "é", "✈️", "\u{10FFFF}", "\u{0}", "{", ":"]
        return (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
            .joined()
    }

    /// A random JSON value as text, with random white space around its parts.
    static func randomValue(depth: Int, using generator: inout SystemRandomNumberGenerator) -> String {
        let space = [" ", "", "\n", "\t", "\r\n"].randomElement(using: &generator)!
        let kinds = depth < 4 ? 7 : 5
        let value: String
        switch Int.random(in: 0..<kinds, using: &generator) {
        case 0:
            var bytes: [UInt8] = []
            JSONBytes.string(randomText(using: &generator), into: &bytes)
            value = String(decoding: bytes, as: UTF8.self)
        case 1: value = String(Int64.random(in: Int64.min...Int64.max, using: &generator))
        case 2: value = Bool.random(using: &generator) ? "true" : "false"
        case 3: value = "null"
        case 4: value = String(Int.random(in: -9...9, using: &generator))
        case 5:
            let items = (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                randomValue(depth: depth + 1, using: &generator)
            }
            value = "[" + items.joined(separator: ",") + "]"
        default:
            let members = (0..<Int.random(in: 0...3, using: &generator)).map { index in
                "\"k\(index)\"" + space + ":" + randomValue(depth: depth + 1, using: &generator)
            }
            value = "{" + members.joined(separator: "," + space) + "}"
        }
        return space + value + space
    }
}

@Suite("A number read as text is the text written, for every number JSON allows and none it does not")
struct JSONScannerNumberTextTests {
    static func numberText(_ text: String) -> String? {
        JSONScannerTests.scan(text) { scanner throws(JSONScanner.NotRead) in try scanner.numberText() }
    }

    @Test(
        "every form RFC 8259 allows reads as written",
        arguments: [
            "0", "-0", "7", "-12", "12.5", "0.001", "1e3", "1E+3", "-2.5e-10", "123456789012345678901234567890",
            "1.0000000000000000000001",
        ]
    )
    func allowed(text: String) {
        #expect(Self.numberText(text) == text)
        #expect(Self.numberText(" \(text) ") == text, "white space around is not the number's")
    }

    @Test(
        "what is no JSON number stops the scanner",
        arguments: [
            "01", "-", "+1", ".5", "5.", "1e", "1e+", "--1", "0x10", "NaN", "Infinity", "1.2.3", "", "-01",
        ]
    )
    func refused(text: String) {
        #expect(Self.numberText(text) == nil)
    }

    @Test("each value's kind is told by its first byte")
    func kinds() {
        let kinds = ["\"a\"", "-1", "3", "{}", "[]", "true", "false", "null"].map { text in
            JSONScannerTests.scan(text) { scanner throws(JSONScanner.NotRead) in
                let kind = scanner.nextKind()
                try scanner.skipValue()
                return kind
            } ?? nil
        }
        #expect(kinds == [.string, .number, .number, .object, .array, .bool, .bool, .null])
        #expect(
            JSONScannerTests.scan("") { scanner throws(JSONScanner.NotRead) in scanner.nextKind() } ?? .string == nil
        )
    }

    @Test("a thousand random numbers: the text comes back as written, and parses to the same Double")
    func random() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1_000 {
            let integer = Int.random(in: -1_000_000...1_000_000, using: &generator)
            let fraction = Bool.random(using: &generator) ? ".\(Int.random(in: 0...99_999, using: &generator))" : ""
            let exponent = Bool.random(using: &generator) ? "e\(Int.random(in: -20...20, using: &generator))" : ""
            let text = "\(integer)\(fraction)\(exponent)"
            let read = Self.numberText(text)
            #expect(read == text)
            #expect(read.flatMap(Double.init) == Double(text))
        }
    }
}
