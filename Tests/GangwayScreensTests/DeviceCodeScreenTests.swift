import Foundation
import GangwayScreens
import Testing

@Suite("The device-code screen")
struct DeviceCodeScreenTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func screen() -> DeviceCodeScreen {
        DeviceCodeScreen(
            userCode: "RZDN-XRTJ",
            verificationURL: URL(string: "https://gangway.example/apps/checks/oauth/device")!,
            verificationURLComplete: URL(
                string: "https://gangway.example/apps/checks/oauth/device?user_code=RZDN-XRTJ"
            ),
            expiresAt: start.addingTimeInterval(600)
        )
    }

    @Test("the countdown shows minutes and seconds left, rounded up, and never goes below zero")
    func countdown() {
        let screen = Self.screen()
        #expect(screen.countdown(at: Self.start) == "The code expires in 10:00.")
        #expect(screen.countdown(at: Self.start.addingTimeInterval(0.5)) == "The code expires in 10:00.")
        #expect(screen.countdown(at: Self.start.addingTimeInterval(541)) == "The code expires in 0:59.")
        #expect(screen.countdown(at: Self.start.addingTimeInterval(700)) == "The code expires in 0:00.")
    }

    @Test("the person can cancel; the app's texts replace the default ones")
    func cancelAndStrings() {
        var screen = Self.screen()
        #expect(screen.kind == .deviceCode)
        #expect(screen.handle(.cancel).outcome == .cancelled)
        var strings = DeviceCodeScreen.Strings()
        strings.expiresIn = "Noch %d:%02d."
        let german = DeviceCodeScreen(
            userCode: "RZDN-XRTJ",
            verificationURL: screen.verificationURL,
            expiresAt: Self.start.addingTimeInterval(90),
            strings: strings
        )
        #expect(german.countdown(at: Self.start) == "Noch 1:30.")
    }
}
