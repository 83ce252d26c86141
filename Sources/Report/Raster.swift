import CPNG

/// An RGBA image in memory that PNG plots are drawn into (straight alpha
/// blending over an opaque background), encoded by libpng.
struct Raster {
    /// A colour, eight bits a channel.
    struct Color: Hashable {
        var red: UInt8
        var green: UInt8
        var blue: UInt8

        /// A colour from `#rrggbb` (black when the text is not one).
        init(hex: String) {
            let digits = UInt32(hex.dropFirst(), radix: 16) ?? 0
            red = UInt8(digits >> 16 & 0xFF)
            green = UInt8(digits >> 8 & 0xFF)
            blue = UInt8(digits & 0xFF)
        }
    }

    let width: Int
    let height: Int
    /// Four bytes a pixel, rows top first.
    private(set) var pixels: [UInt8]

    /// An image of `width` × `height` pixels filled with `background`.
    init(width: Int, height: Int, background: Color) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 255, count: width * height * 4)
        fill(x: 0, y: 0, width: width, height: height, color: background)
    }

    /// Blends `color` at `alpha` (0...1) into one pixel; outside the image, nothing.
    mutating func blend(x: Int, y: Int, color: Color, alpha: Double = 1) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let index = (y * width + x) * 4
        func mix(_ old: UInt8, _ new: UInt8) -> UInt8 {
            UInt8((Double(old) * (1 - alpha) + Double(new) * alpha).rounded())
        }
        pixels[index] = mix(pixels[index], color.red)
        pixels[index + 1] = mix(pixels[index + 1], color.green)
        pixels[index + 2] = mix(pixels[index + 2], color.blue)
        pixels[index + 3] = 255
    }

    /// Fills a rectangle (clipped to the image).
    mutating func fill(x: Int, y: Int, width: Int, height: Int, color: Color, alpha: Double = 1) {
        let rows = (max(0, y), min(self.height, y &+ height))
        let columns = (max(0, x), min(self.width, x &+ width))
        guard rows.0 < rows.1, columns.0 < columns.1 else { return }
        for row in rows.0..<rows.1 {
            for column in columns.0..<columns.1 {
                blend(x: column, y: row, color: color, alpha: alpha)
            }
        }
    }

    /// A one-pixel line between two points.
    mutating func line(from start: (Double, Double), to end: (Double, Double), color: Color, alpha: Double = 1) {
        // Off-image and non-finite points are not drawn (the image is at most a few thousand pixels).
        let limit = 1e6
        guard [start.0, start.1, end.0, end.1].allSatisfy({ abs($0) < limit }) else { return }
        let steps = Int(max(abs(end.0 - start.0), abs(end.1 - start.1)).rounded(.up))
        guard steps > 0 else {
            blend(x: Int(start.0.rounded()), y: Int(start.1.rounded()), color: color, alpha: alpha)
            return
        }
        for step in 0...steps {
            let t = Double(step) / Double(steps)
            let x = start.0 + (end.0 - start.0) * t
            let y = start.1 + (end.1 - start.1) * t
            blend(x: Int(x.rounded()), y: Int(y.rounded()), color: color, alpha: alpha)
        }
    }

    /// Text in the pixel font with its top-left corner at (`x`, `y`), at most `maximumWidth` pixels wide
    /// (cut with `…`).
    mutating func text(
        _ text: String, x: Int, y: Int, color: Color, scale: Int = 1, maximumWidth: Int = .max
    ) {
        var characters = Array(text)
        let fitting = max(1, maximumWidth / PixelFont.advance(scale: scale))
        if characters.count > fitting { characters = Array(characters.prefix(fitting - 1)) + ["…"] }
        for (index, character) in characters.enumerated() {
            let left = x + index * PixelFont.advance(scale: scale)
            for (row, bits) in PixelFont.rows(character).enumerated() {
                for column in 0..<5 where bits & (0x10 >> UInt8(column)) != 0 {
                    fill(x: left + column * scale, y: y + row * scale, width: scale, height: scale, color: color)
                }
            }
        }
    }

    /// The image as PNG bytes, encoded by libpng.
    ///
    /// - Throws: ``ReportError`` when libpng refuses the image.
    func png() throws(ReportError) -> [UInt8] {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = cpng_format_rgba
        var size = 0
        let stride = Int32(width * 4)
        // First the size, then the bytes.
        let sized = pixels.withUnsafeBytes { buffer in
            png_image_write_to_memory(&image, nil, &size, 0, buffer.baseAddress, stride, nil)
        }
        guard sized != 0, size > 0 else { throw ReportError("libpng cannot encode the image: \(message(image))") }
        var bytes = [UInt8](repeating: 0, count: size)
        let written = bytes.withUnsafeMutableBytes { output in
            pixels.withUnsafeBytes { buffer in
                png_image_write_to_memory(&image, output.baseAddress, &size, 0, buffer.baseAddress, stride, nil)
            }
        }
        png_image_free(&image)
        guard written != 0 else { throw ReportError("libpng cannot encode the image: \(message(image))") }
        return Array(bytes.prefix(size))
    }

    private func message(_ image: png_image) -> String {
        var copy = image.message
        return withUnsafeBytes(of: &copy) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
