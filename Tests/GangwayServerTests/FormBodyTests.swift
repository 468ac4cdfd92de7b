import Foundation
import Testing

@testable import GangwayServer

/// Form bodies as the WHATWG URL standard reads them, whatever bytes arrive: found by the
/// `form` fuzzing harness (`scripts/fuzz form`), where Foundation's `URLComponents` trapped
/// on a body of two NUL bytes, and on a space after a `%`.
@Suite("Form bodies: any text is read, never a crash")
struct FormBodyTests {
    @Test(
        "bodies that crashed the server's form reader are read",
        arguments: ["\u{0}\u{0}", "% %", "%", "a=%zz&b=%4", "=&=&", "a=1&a=2", "\u{FFFF}=\u{0}"]
    )
    func hostileBodies(body: String) {
        _ = OAuthPage.form(body)
    }

    @Test("names and values are decoded as a browser encodes them; the first value of a name counts")
    func decoding() {
        let fields = OAuthPage.form(
            "user_code=BCDF-GHJK&username=al%69ce+m&password=p%2Bw%3D%26&x&username=bob&e=%E2%82%AC&bad=%zz%"
        )
        #expect(fields["user_code"] == "BCDF-GHJK")
        #expect(fields["username"] == "alice m")
        #expect(fields["password"] == "p+w=&")
        #expect(fields["x"] == "")
        #expect(fields["e"] == "€")
        #expect(fields["bad"] == "%zz%")
        #expect(OAuthPage.form("a=%FF")["a"] == "\u{FFFD}", "bytes that are not UTF-8")
    }
}
