import Foundation
import GangwayScreens
import GangwaySystem

extension TerminalPresenter {
    /// The device-code screen: the address, the code, the address with the code as a QR
    /// code (when `qrencode` is installed), and the time left, counting down on a
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
        if let complete = screen.verificationURLComplete, let code = await qrCode(complete.absoluteString) {
            console.line(strings.scan)
            console.write(code)
        }
        if console.isInteractive {
            defer { console.line() }
            while !Task.isCancelled {
                console.control(.clearLine)
                console.write(console.styled("\(strings.waiting) \(screen.countdown(at: Date()))", .dim))
                try? await Task.sleep(for: .seconds(1))
            }
        } else {
            console.line(screen.countdown(at: Date()))
            console.line(strings.waiting)
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(60)) }
        }
        throw CancellationError()
    }

    /// `text` as a QR code of text blocks, or `nil` without `qrencode`.
    private func qrCode(_ text: String) async -> String? {
        let arguments = ["--type=UTF8", "--margin=1", "--output=-", "--", text]
        guard let output = try? await ExternalTool("qrencode").run(arguments), output.status == 0 else { return nil }
        return output.text
    }
}
