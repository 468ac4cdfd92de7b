import Foundation
import FuzzServer
import FuzzSupport
import HTTPTypes

// The OAuth requests, through the whole server in-process (the gateway middleware, the
// router, the generated form decoding, the handlers over SQLite): the token, revocation
// and device authorization endpoints, and the forms and query of the sign-in and device
// pages. No client credentials are needed to send any of them.
//
// Modes (first byte) choose the request; the rest is its form body (or query), where
// `$DEVICE_CODE` stands for the code of a device grant waiting for approval:
// 0 POST …/oauth/token, 1 …/oauth/revoke, 2 …/oauth/device_authorization, 3 POST
// …/oauth/authorize (the sign-in form), 4 GET …/oauth/authorize?…, 5 POST …/oauth/device.
// The page forms come from a browser that opened the sign-in page: `$FORM_TOKEN` stands
// for its anti-forgery token.

runFuzzer(fuzz)

@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let (mode, rest) = FuzzInput(start, count).mode(of: 6) else { return 0 }
    let server = FuzzServer.shared
    let browser = FuzzServer.pageBrowser
    let body = rest.replacingPlaceholder("$DEVICE_CODE", with: server.deviceCode)
        .replacingPlaceholder("$FORM_TOKEN", with: browser.formToken)
    let form = FuzzServer.headers(contentType: "application/x-www-form-urlencoded")
    var pageHeaders = form
    pageHeaders[.cookie] = browser.cookie
    let page = pageHeaders
    blocking {
        switch mode {
        case 0: await server.send(.post, "/apps/oauth/oauth/token", headers: form, body: body)
        case 1: await server.send(.post, "/apps/oauth/oauth/revoke", headers: form, body: body)
        case 2: await server.send(.post, "/apps/oauth/oauth/device_authorization", headers: form, body: body)
        case 3: await server.send(.post, "/apps/oauth/oauth/authorize", headers: page, body: body)
        case 4:
            // A query holds no space or line break: Hummingbird would not take the request line.
            let query = String(decoding: body.filter { $0 > 0x20 && $0 != 0x7F }, as: UTF8.self)
            await server.send(.get, "/apps/oauth/oauth/authorize?" + query)
        default: await server.send(.post, "/apps/oauth/oauth/device", headers: page, body: body)
        }
    }
    return 0
}
