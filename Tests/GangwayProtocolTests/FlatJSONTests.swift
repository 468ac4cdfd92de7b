import Foundation
import GangwayProtocol
import Testing

@Suite("An entity's fields and field versions are stored as JSON any parser reads, and read back as written")
struct FlatJSONTests {
    static let awkward: [[String: String]] = [
        [:], ["": ""], ["status": "done"], ["a": "1", "b": "2,3", "c": "{}", "d": "x:y"],
        ["quote\"": "say \"hi\"", "back\\slash": "C:\\dir\\", "slash": "a/b"],
        ["control": "line\nnext\ttab\u{1}\u{1F}\u{7F}", "nul": "\u{0}"],
        ["accents": "Zoë", "emoji": "✈️👩🏽‍🔧", "rtl": "evil\u{202E}gpj", "números": "١٢٣"],
    ]

    @Test func fieldsReadBackAsWrittenAndAsFoundationReadsThem() throws {
        for fields in Self.awkward {
            let text = FlatJSON.text(fields)
            #expect(FlatJSON.strings(text) == fields, "\(text)")
            #expect(try JSONDecoder().decode([String: String].self, from: Data(text.utf8)) == fields, "\(text)")
        }
    }

    @Test func versionsReadBackAsWritten() throws {
        for versions: [String: Int64] in [[:], ["status": 1], ["a": Int64.max, "b": Int64.min, "c": 0, "d": -7]] {
            let text = FlatJSON.text(versions)
            #expect(FlatJSON.integers(text) == versions, "\(text)")
            #expect(try JSONDecoder().decode([String: Int64].self, from: Data(text.utf8)) == versions)
        }
    }

    @Test func whatEarlierVersionsWroteStillReads() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for fields in Self.awkward {
            let text = String(decoding: try encoder.encode(fields), as: UTF8.self)
            #expect(FlatJSON.strings(text) == fields, "\(text)")
        }
        #expect(FlatJSON.strings(#"{ "a" : "b" , "c":"\/\u00e9" }"#) == ["a": "b", "c": "/é"])
        #expect(FlatJSON.integers(#"{"a": 1, "b":2}"#) == ["a": 1, "b": 2])
        // A key twice, or a comma before the brace: JSONDecoder decides, as it did before.
        #expect(FlatJSON.strings(#"{"a":"b",}"#) == ["a": "b"])
        #expect(FlatJSON.integers(#"{"a":1,}"#) == ["a": 1])
        let twice = #"{"a":"1","a":"2"}"#
        #expect(FlatJSON.strings(twice) == (try? JSONDecoder().decode([String: String].self, from: Data(twice.utf8))))
    }

    @Test func whatIsNotAFlatMapOfTheRightKindReadsAsNothing() {
        for text in [
            "", "{", "}", "[]", "null", #"{"a":1}"#, #"{"a":"b""#, #"{"a" "b"}"#, #"{"a":["b"]}"#,
            #"{"a":"b"}x"#, #"{a:"b"}"#, #"{"a":"b\"}"#, "{\"a\":\"b\u{1}\"}",
        ] {
            #expect(FlatJSON.strings(text) == nil, "\(text)")
        }
        for text in [
            "", #"{"a":"1"}"#, #"{"a":1.5}"#, #"{"a":-}"#, #"{"a":1-2}"#, #"{"a":99999999999999999999}"#,
            #"{"a":true}"#, #"{"a":null}"#, #"{"a":}"#,
        ] {
            #expect(FlatJSON.integers(text) == nil, "\(text)")
        }
    }
}
