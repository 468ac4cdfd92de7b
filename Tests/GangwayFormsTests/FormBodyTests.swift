import Foundation
import GangwayForms
import NIOCore
import Testing

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
        _ = FormBody.fields(body)
    }

    @Test("names and values are decoded as a browser encodes them; the first value of a name counts")
    func decoding() {
        let fields = FormBody.fields(
            "user_code=BCDF-GHJK&username=al%69ce+m&password=p%2Bw%3D%26&x&username=bob&e=%E2%82%AC&bad=%zz%"
        )
        #expect(fields["user_code"] == "BCDF-GHJK")
        #expect(fields["username"] == "alice m")
        #expect(fields["password"] == "p+w=&")
        #expect(fields["x"] == "")
        #expect(fields["e"] == "€")
        #expect(fields["bad"] == "%zz%")
    }

    @Test("a field whose bytes are not UTF-8 is left out, never read with U+FFFD in their place")
    func bytesThatAreNotText() {
        // Read the standard's way, a%FF and a%FE would both be "a\u{FFFD}": one password.
        let fields = FormBody.fields("password=a%FF&other=1&x%FE=2")
        #expect(fields["password"] == nil && fields["other"] == "1" && fields.count == 1, "\(fields)")
        #expect(FormBody.fields("password=a%FE")["password"] == nil)
        #expect(FormBody.fields("e=%E2%82%AC")["e"] == "€")
        // A body that is not UTF-8 text itself has no fields.
        #expect(FormBody.fields(ByteBuffer(bytes: Array("a=1&b=".utf8) + [0xFF])).isEmpty)
        #expect(FormBody.fields(ByteBuffer(string: "a=1&b=%C3%A9")) == ["a": "1", "b": "é"])
    }
}
