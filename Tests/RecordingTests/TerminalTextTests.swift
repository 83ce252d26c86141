import Quantities
import Testing

/// Issue 36 item 12: names from devices and files never drive the terminal.
@Suite struct TerminalTextTests {
    @Test func controlAndBidiCharactersAreEscapedAndPlainTextIsUntouched() {
        #expect(TerminalText.escaped("DIoT-9F3A ü 東京") == "DIoT-9F3A ü 東京")
        #expect(TerminalText.escaped("x\u{1B}]0;owned\u{07}y") == "x\\e]0;owned\\u{7}y")
        #expect(TerminalText.escaped("a\u{1B}[2Kb\r\n\t") == "a\\e[2Kb\\r\\n\\t")
        #expect(TerminalText.escaped("\u{7F}\u{9B}31m") == "\\u{7F}\\u{9B}31m")
        #expect(TerminalText.escaped("abc\u{202E}fed") == "abc\\u{202E}fed")
        // A backslash is doubled, so `\e` in the output always means ESC.
        #expect(TerminalText.escaped("a\\e") == "a\\\\e")
        #expect(TerminalText.escaped("") == "")
    }
}
