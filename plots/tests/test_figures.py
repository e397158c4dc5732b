"""plots/figures.py at one column and at full width: every ratio tick of the versions figure labelled and its title
inside the figure, a legend right under the axes' text (no blank band), and several GPUs' identical curves each
left visible."""
import unittest

from plots import figures, models, stats

WIDTHS = (figures.COLUMN, figures.FULL)


def comparison(ratio):
    return stats.Comparison(1.0, ratio, ratio, ratio * 0.99, ratio * 1.01, 0.5, stats.SAME, 10, 10)


def version_rows(index=0, gpu="GPU A"):
    kernels = ["sum_bytes", "global", "per_block", "per_warp copies=8", "partitioned P=8", "lane_shared"]
    rows = [(k, comparison(1.0 + 0.002 * n), comparison(1.0), 1.497 if k == "sum_bytes" else None)
            for n, k in enumerate(kernels)]
    return models.VersionRows(rows, ("12.6", "13.0"), "nvrtc 13.0 over nvrtc 12.6", "Tesla T4, CUDA 13.0 over "
                              "12.6.85 (published, no interval)", gpu=gpu, index=index)


def drawn(fig):
    renderer = fig.canvas.get_renderer()
    fig.draw(renderer)
    return renderer


class VersionsFigure(unittest.TestCase):
    def test_every_ratio_tick_in_view_is_labelled(self):
        for width in WIDTHS:
            fig = figures.versions_figure([version_rows(0, "GPU A"), version_rows(1, "GPU B")], width)
            ax = fig.axes[0]
            low, high = ax.get_xlim()
            shown = [t.get_text() for t in ax.get_xticklabels() if low <= t.get_position()[0] <= high]
            self.assertEqual(shown, ["1", "1.1", "1.2", "1.3", "1.4", "1.5"], width)
            figures.plt.close(fig)

    def test_the_title_lies_inside_the_figure_width(self):
        for width in WIDTHS:
            fig = figures.versions_figure([version_rows()], width)
            renderer = drawn(fig)
            box = fig.axes[0].title.get_window_extent(renderer)
            self.assertGreaterEqual(box.x0, 0, width)
            self.assertLessEqual(box.x1, fig.bbox.width, width)
            figures.plt.close(fig)


class Legend(unittest.TestCase):
    def test_the_legend_starts_right_under_the_axes_text(self):
        for width in WIDTHS:
            fig = figures.versions_figure([version_rows()], width)
            renderer = drawn(fig)
            axes_bottom = min(ax.get_tightbbox(renderer).y0 for ax in fig.axes)
            legend_top = fig.legends[0].get_window_extent(renderer).y1
            gap = (axes_bottom - legend_top) / fig.dpi
            self.assertGreaterEqual(gap, 0, width)         # below the axes' text, never over it
            self.assertLess(gap, 0.2, width)               # and no blank band between them
            figures.plt.close(fig)


class SeveralGpus(unittest.TestCase):
    def test_a_gpu_drawn_first_is_drawn_wider_so_an_identical_curve_leaves_it_visible(self):
        values = {k: 1000.0 * k for k in (256, 16, 1)}
        series = [models.SweepSeries("global", gpu, index, values, ("baseline",))
                  for index, gpu in enumerate(("GPU A", "GPU B"))]
        fig = figures.sweep_figure(models.SweepLines([256, 16, 1], series), figures.COLUMN)
        first, second = fig.axes[0].get_lines()
        self.assertNotEqual(first.get_color(), second.get_color())
        self.assertGreater(first.get_linewidth(), second.get_linewidth())
        self.assertGreater(first.get_markersize(), second.get_markersize())
        figures.plt.close(fig)

    def test_one_gpu_keeps_the_default_sizes(self):
        self.assertEqual(figures.layered(0, [0]), {})
        self.assertEqual(figures.layered("published", [0, 1]), {})


if __name__ == "__main__":
    unittest.main()
