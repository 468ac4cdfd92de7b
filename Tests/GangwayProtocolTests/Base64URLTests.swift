import Foundation
import GangwayProtocol
import Testing

@Suite("Base64url reads and writes RFC 4648 §5 text without padding, and refuses anything else")
struct Base64URLTests {
    @Test("every length round-trips, with the URL alphabet and no padding")
    func roundTrips() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...70 {
            let bytes = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let text = bytes.base64URLEncoded
            #expect(!text.contains("+") && !text.contains("/") && !text.contains("="))
            let expected = bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(text == expected)
            #expect(Data(base64URLEncoded: text) == bytes, "length \(length)")
        }
    }

    @Test("the bytes that use both URL characters, padded or not")
    func urlCharacters() {
        let bytes = Data([0xfb, 0xff, 0xbf])
        #expect(bytes.base64URLEncoded == "-_-_")
        #expect(Data([0xfb]).base64URLEncoded == "-w")
        #expect(Data(base64URLEncoded: "-w") == Data([0xfb]))
        #expect(Data(base64URLEncoded: "-w==") == Data([0xfb]))
        #expect(Data(base64URLEncoded: "") == Data())
    }

    @Test(
        "text that is not base64url is nil",
        arguments: ["+w", "/w", "a=b", "=abc", "ab c", "abcé", "a", "abcde", "ab\u{0}c"]
    )
    func refuses(text: String) {
        #expect(Data(base64URLEncoded: text) == nil)
    }
}
