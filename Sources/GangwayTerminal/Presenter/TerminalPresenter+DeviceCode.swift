import Foundation
import GangwayQRCode
import GangwayScreens
import GangwaySystem

extension TerminalPresenter {
    /// The device-code screen: the address, the code, the address with the code as a QR
    /// code, and the time left, counting down on a
    /// terminal. It reads no input, so answers typed ahead wait for the screens after it;
    /// the flow takes it down when the server answers. Ctrl-C gives up.
    func run(_ screen: DeviceCodeScreen) async throws -> DeviceCodeScreen.Outcome {
        let strings = screen.strings
        console.heading(strings.title)
        if let message = screen.message { console.line(console.styled(message, .yellow)) }
        console.line(strings.visit)
        console.line("  " + console.styled(screen.verificationURL.absoluteString, .cyan))
        console.line(strings.enterCode)
        console.line("  " + console.styled(screen.userCode, .bold))
        if let complete = screen.verificationURLComplete, let code = qrCode(complete.absoluteString) {
            console.line(strings.scan)
            console.write(code)
        }
        if console.isInteractive {
            defer { console.line() }
            while !Task.isCancelled {
                console.control(.clearLine)
                console.write(console.styled("\(strings.waiting) \(screen.countdown(at: now()))", .dim))
                try? await Task.sleep(for: .seconds(1))
            }
        } else {
            console.line(screen.countdown(at: now()))
            console.line(strings.waiting)
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(60)) }
        }
        throw CancellationError()
    }

    /// `text` as a QR code of text blocks (light modules drawn, as `qrencode -t UTF8` does, so
    /// a dark terminal shows dark modules), or `nil` when it is longer than a code holds.
    private func qrCode(_ text: String) -> String? {
        guard let code = try? QRCode(encoding: text, correction: .medium) else { return nil }
        return code.terminalLines(quietZone: 2).joined(separator: "\n") + "\n"
    }
}
