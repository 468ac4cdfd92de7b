import Foundation
import FuzzSupport

@testable import GangwayClient
@testable import GangwayProtocol
@testable import GangwayServerStorage

// The flat JSON maps both databases store an entity's fields and field versions in
// (`FlatJSON`, a hand-written scanner with `JSONDecoder` behind it), and the plain JSON
// of a change's result (`ChangeResult.plainJSON`). A device chooses every field name and
// value, so a map must come back exactly as it was written.
//
// Also the sync page a device reads by scanning (`JSONScanner`, `AppDataChanges.scanned`),
// whose bytes the server sends: what the scanner reads must be what `JSONDecoder` reads.
//
// Modes (first byte): 0 reads the rest as stored text, and whatever the scanner reads
// must be what `JSONDecoder` reads; 1 and 2 write a map of strings or integers made
// from the rest and read it back; 3 writes a plain change result and decodes it; 4 reads
// the rest as a sync page, and a page the scanner reads must decode with the generated
// type to the same page; 5 skips the rest as one JSON value, and what the scanner takes
// must be JSON to `JSONSerialization`.

runFuzzer(fuzz)

@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let (mode, rest) = FuzzInput(start, count).mode(of: 6) else { return 0 }
    switch mode {
    case 0: readStoredText(rest.text)
    case 1: roundTripStrings(rest)
    case 2: roundTripIntegers(rest)
    case 3: roundTripResult(rest)
    case 4: readSyncPage(Array(rest))
    default: skipValue(Array(rest))
    }
    return 0
}

private func readStoredText(_ text: String) {
    let decoded = try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))
    let strings = FlatJSON.strings(text)
    if let decoded {
        invariant(strings == decoded, "FlatJSON.strings reads valid JSON as JSONDecoder does")
    }
    let decodedIntegers = try? JSONDecoder().decode([String: Int64].self, from: Data(text.utf8))
    let integers = FlatJSON.integers(text)
    if let decodedIntegers {
        invariant(integers == decodedIntegers, "FlatJSON.integers reads valid JSON as JSONDecoder does")
    }
}

/// Names and values split at NUL bytes, alternately.
private func pairs(_ bytes: ArraySlice<UInt8>) -> [(String, String)] {
    let parts = bytes.split(separator: 0, omittingEmptySubsequences: false).map(\.text)
    return stride(from: 0, to: parts.count - 1, by: 2).map { (parts[$0], parts[$0 + 1]) }
}

private func roundTripStrings(_ bytes: ArraySlice<UInt8>) {
    let map = Dictionary(pairs(bytes), uniquingKeysWith: { first, _ in first })
    let text = FlatJSON.text(map)
    invariant(FlatJSON.strings(text) == map, "a map of strings reads back as written")
    let decoded = try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))
    invariant(decoded == map, "FlatJSON.text writes JSON that JSONDecoder reads back the same")
}

private func roundTripIntegers(_ bytes: ArraySlice<UInt8>) {
    // Each entry: a one-byte name length, the name, then eight bytes of the number.
    var map: [String: Int64] = [:]
    var index = bytes.startIndex
    while index < bytes.endIndex {
        let length = Int(bytes[index])
        let nameEnd = min(bytes.endIndex, index + 1 + length)
        let name = bytes[(index + 1)..<nameEnd].text
        let numberEnd = min(bytes.endIndex, nameEnd + 8)
        let number = bytes[nameEnd..<numberEnd].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        map[name] = number
        index = numberEnd
    }
    let text = FlatJSON.text(map)
    invariant(FlatJSON.integers(text) == map, "a map of integers reads back as written")
}

private func roundTripResult(_ bytes: ArraySlice<UInt8>) {
    var bytes = Array(bytes)
    bytes += [UInt8](repeating: 0, count: max(0, 27 - bytes.count))
    let outcomes: [ChangeResult.Outcome] = [.applied, .duplicate, .conflict, .rejected]
    let id = UUID(
        uuid: (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
        )
    )
    let original = bytes[17] < 4 ? outcomes[Int(bytes[17])] : nil
    let version = bytes[18] & 1 == 1 ? bytes[19..<27].reduce(Int64(0)) { $0 << 8 | Int64($1) } : nil
    let result = ChangeResult(
        changeID: id,
        outcome: outcomes[Int(bytes[16] % 4)],
        original: original,
        version: version
    )
    guard let json = result.plainJSON else { return }
    let decoded = try? JSONDecoder().decode(ChangeResult.self, from: json)
    invariant(decoded == result, "a plain result's JSON decodes to the same result")
    let answer = ChangeAnswer(result: result)
    if let answerJSON = answer.plainJSON {
        invariant(
            (try? JSONDecoder().decode(ChangeAnswer.self, from: answerJSON)) == answer,
            "a plain answer's JSON decodes to the same answer"
        )
    }
}

private func readSyncPage(_ bytes: [UInt8]) {
    guard let scanned = bytes.withUnsafeBytes({ AppDataChanges.scanned($0) }) else { return }
    let decoded = try? JSONDecoder.gangway.decode(Components.Schemas.EntityChanges.self, from: Data(bytes))
    invariant(decoded.map(AppDataChanges.init) == scanned, "a sync page the scanner reads is the one JSONDecoder reads")
}

private func skipValue(_ bytes: [UInt8]) {
    let skipped = bytes.withUnsafeBytes { buffer in
        var scanner = JSONScanner(buffer)
        do throws(JSONScanner.NotRead) {
            try scanner.skipValue()
            try scanner.end()
            return true
        } catch {
            return false
        }
    }
    guard skipped else { return }
    let parsed = try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)
    invariant(parsed != nil, "a value the scanner skips whole is JSON")
}
