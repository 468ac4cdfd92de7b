import FuzzServer
import FuzzSupport
import HTTPTypes

// A device's log upload (`POST /apps/{appID}/logs`), through the whole server in-process:
// the JSON body's decoding (entries, RFC 3339 times, levels), the checks of each entry and
// the insert into SQLite. The rest of the input is the body; a registered device sends it.

runFuzzer(fuzz)

@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let server = FuzzServer.shared
    let body = FuzzInput(start, count).bytes
    blocking {
        // A minute between uploads: the upload throttle never refuses, and old logs expire.
        server.advanceClock(by: 60)
        await server.send(
            .post,
            "/apps/checks/logs",
            headers: FuzzServer.headers(contentType: "application/json", token: server.session),
            body: body
        )
    }
    return 0
}
