# The Ruby fixture project of tests/test_languages.py.
class Inventory
  def initialize
    @stock_levels = {}
  end

  # Adds items of a product to the stock.
  def add_stock(product_id, quantity)
    @stock_levels[product_id] = stock_level(product_id) + quantity
  end

  # Returns how many items of a product are in stock.
  def stock_level(product_id)
    @stock_levels.fetch(product_id, 0)
  end

  # Builds an inventory from a list of products.
  def self.from_products(products)
    inventory = new
    products.each { |product| inventory.add_stock(product.id, product.count) }
    inventory
  end
end
